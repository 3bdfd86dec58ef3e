import { MutationFailed } from '../errors.js';
import { checkPolicy } from '../policy-shape.js';
import type { MutationInput, MutationOutput, Mutator } from '../types.js';
import type { TuneRequest } from './request.js';
import type { TuneResult } from './run.js';

/**
 * Where tuning runs: it needs the evaluator, so the evolution run provides
 * it (the evaluator pool runs each tuning run inside one worker task, so
 * tuning runs parallelise like evaluations). `objective` says which
 * snapshots and normalisation the run's fitness uses.
 */
export interface Tuner {
  tune(request: TuneRequest): Promise<TuneResult | { ok: false; kind: 'crash'; message: string }>;
  objective(): Pick<TuneRequest, 'snapshots' | 'references'>;
}

/** What one search mutator sends besides the parent, seed, baseline and objective. */
export type SearchFields = Pick<TuneRequest, 'search' | 'replays' | 'maxLiterals'>;

/**
 * A mutator whose child is one search a pool worker runs through the `Tuner`
 * (tune's literals, knob-search's knobs): the parent's code, a seed from the
 * candidate's rng (same slot, same search), its fitness as the baseline, the
 * run's objective, and `fields`. `words` name it in its failures.
 */
export function createSearchMutator(
  name: string,
  tuner: () => Tuner | undefined,
  fields: SearchFields,
  words: { noTuner: string; result: string },
): Mutator {
  return {
    name,
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      if (signal?.aborted) throw new MutationFailed('aborted', 'aborted before it started', { mutator: name });
      const t = tuner();
      if (!t) throw new MutationFailed('endpoint', words.noTuner, { mutator: name });
      const parent = checkPolicy(input.parent.code);
      if (!parent.ok) throw new MutationFailed('parse', `parent #${input.parent.id} ${parent.message}`, { mutator: name });
      // Key order is the queue job's content address (evolve/queue/payload.ts): a tune request reads as it always has.
      const result = await t.tune({
        ...(fields.search ? { search: fields.search } : {}),
        code: input.parent.code,
        seed: Math.floor(input.rng.next() * 2 ** 31),
        replays: fields.replays,
        maxLiterals: fields.maxLiterals,
        baseline: typeof input.parent.fitness === 'number' ? input.parent.fitness : null,
        ...t.objective(),
      });
      if (!result.ok) {
        throw new MutationFailed(result.kind === 'crash' ? 'endpoint' : result.kind, result.message, { mutator: name });
      }
      const check = checkPolicy(result.code);
      if (!check.ok) throw new MutationFailed('parse', `${words.result} ${check.message}`, { mutator: name });
      return { code: result.code, editSummary: result.summary, model: null, promptTokens: null, completionTokens: null, mutator: name };
    },
  };
}
