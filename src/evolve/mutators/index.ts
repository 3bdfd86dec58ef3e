/**
 * Mutators (design section 7): what turns a parent policy into a candidate.
 * `structural` edits the source with no network; `knob` inserts one
 * contract-v2 plan field the parent does not set, `knob-search` the best of
 * those its replays find; `llm` asks an
 * OpenAI-compatible endpoint; `mix:` draws one of them per candidate.
 */
export type { Mutator, MutationInput, MutationOutput, ScoredPolicy } from './types.js';
export { MutationFailed, type MutationFailureReason, type MutationCost } from './errors.js';
export { createStructuralMutator, type StructuralOptions } from './structural/index.js';
export { createThreadedStructuralMutator, type ClosableMutator } from './structural/threaded.js';
export { createLlmMutator, type LlmOptions } from './llm/index.js';
export { createMixedMutator } from './mixed.js';
export { parseMutatorSpec, DEFAULT_OFFLINE_MIX, ROLES_ONLY_OFFLINE_MIX, type MutatorName } from './spec.js';
export { createKnobMutator } from './knob/index.js';
export { createKnobSearchMutator, inForceAtStart, runKnobSearch, type KnobInForce, type KnobSearchOptions } from './knob-search/index.js';
export { createTuneMutator, runTuning, SearchMemo, type SearchMemoSnapshot, type Tuner, type TuneOptions, type TuneRequest, type TuneResult } from './tune/index.js';
export { createCrossoverMutator, crossPolicies } from './crossover/index.js';
export { applySearchReplace, extractWholeFile, type AnswerError } from './llm/answer.js';
export { checkPolicy, CONTRACT_FUNCTIONS } from './policy-shape.js';
