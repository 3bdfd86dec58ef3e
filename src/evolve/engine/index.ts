/** The evolution loop: seeds -> islands -> mutate -> evaluate in parallel -> lineage (design section 7). */
export { EvolutionRun, type IterationProgress, type RunHooks, type OpenOptions, type EvaluationBackend } from './run.js';
export type { BackendFactory } from './backend.js';
export { runEvolutionCycle, topElites, type CycleInput, type CycleResult, type CycleSettings, type CycleEndStatus } from './cycle.js';
export { Evolver, type Starter, type CommittedIteration, type EvolverSettings, type MutationTally } from './evolver.js';
export { EvolveConfigSchema, LlmSettingsSchema, type EvolveConfig, type EvolveConfigInput } from './config.js';
export { loadSeeds, type SeedPolicy } from './seeds.js';
export { buildMutator } from './build-mutator.js';
export { archiveSpread, type EvolveSummary, type ArchiveSpread } from './summary.js';
export { Scorer, type CandidateScorer, type ScoredOutcome, type ScoredSnapshot } from './scorer.js';
export { Validator, summarizeValidation, type ValidationSummary } from './validation.js';
export { checkValidateSeeds, windowOf, stringsPlan, referencePolicy, snapshotLabel, type SnapshotPlan } from './snapshot-plan.js';
