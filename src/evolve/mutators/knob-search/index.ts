import { MutationFailed } from '../errors.js';
import { checkPolicy } from '../policy-shape.js';
import type { Tuner } from '../tune/index.js';
import type { MutationInput, MutationOutput, Mutator } from '../types.js';

export { runKnobSearch, type KnobInForce } from './run.js';

export interface KnobSearchOptions {
  /** Replays per search (default 8, tune's). */
  replays?: number;
}

/**
 * The `knob-search` mutator: one knob search of the parent
 * (src/evolve/mutators/knob-search/run.ts) gives one candidate, the best
 * single knob insertion its budget found, the pairs tried and their objective
 * in the edit line. It runs through the same `Tuner` (a pool worker) as
 * `tune`, so searches parallelise like evaluations. `knob`, which draws one
 * pair blind, stays a mutator of its own.
 */
export function createKnobSearchMutator(tuner: () => Tuner | undefined, options: KnobSearchOptions = {}): Mutator {
  const replays = options.replays ?? 8;
  const name = 'knob-search';
  return {
    name,
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      if (signal?.aborted) throw new MutationFailed('aborted', 'aborted before it started', { mutator: name });
      const t = tuner();
      if (!t) throw new MutationFailed('endpoint', 'no evaluator to search with (knob-search runs inside an evolution run)', { mutator: name });
      const parent = checkPolicy(input.parent.code);
      if (!parent.ok) throw new MutationFailed('parse', `parent #${input.parent.id} ${parent.message}`, { mutator: name });
      const result = await t.tune({
        search: 'knobs',
        code: input.parent.code,
        // The candidate's rng orders the pairs: same slot, same search.
        seed: Math.floor(input.rng.next() * 2 ** 31),
        replays,
        maxLiterals: 0,
        baseline: typeof input.parent.fitness === 'number' ? input.parent.fitness : null,
        ...t.objective(),
      });
      if (!result.ok) {
        throw new MutationFailed(result.kind === 'crash' ? 'endpoint' : result.kind, result.message, { mutator: name });
      }
      const check = checkPolicy(result.code);
      if (!check.ok) throw new MutationFailed('parse', `searched code ${check.message}`, { mutator: name });
      return { code: result.code, editSummary: result.summary, model: null, promptTokens: null, completionTokens: null, mutator: name };
    },
  };
}
