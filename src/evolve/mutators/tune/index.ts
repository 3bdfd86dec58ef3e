import { MutationFailed } from '../errors.js';
import { checkPolicy } from '../policy-shape.js';
import type { MutationInput, MutationOutput, Mutator } from '../types.js';
import type { TuneRequest } from './request.js';
import type { TuneResult } from './run.js';

export type { TuneRequest } from './request.js';
export { runTuning, type TuneResult } from './run.js';

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

export interface TuneOptions {
  /** Replays per tuning run (default 8). */
  replays?: number;
  /** Most literals tuned at once (default 4). */
  maxLiterals?: number;
}

/**
 * The `tune` mutator: one tuning run of the parent's numeric constants
 * (src/evolve/mutators/tune/run.ts) gives one candidate, its trajectory in
 * the edit line. `tuner` is resolved when a mutation starts (the run binds
 * it once its pool exists).
 */
export function createTuneMutator(tuner: () => Tuner | undefined, options: TuneOptions = {}): Mutator {
  const replays = options.replays ?? 8;
  const maxLiterals = options.maxLiterals ?? 4;
  return {
    name: 'tune',
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      if (signal?.aborted) throw new MutationFailed('aborted', 'aborted before it started', { mutator: 'tune' });
      const t = tuner();
      if (!t) throw new MutationFailed('endpoint', 'no evaluator to tune with (tune runs inside an evolution run)', { mutator: 'tune' });
      const parent = checkPolicy(input.parent.code);
      if (!parent.ok) throw new MutationFailed('parse', `parent #${input.parent.id} ${parent.message}`, { mutator: 'tune' });
      const result = await t.tune({
        code: input.parent.code,
        // The candidate's rng seeds the whole run: same slot, same tuning.
        seed: Math.floor(input.rng.next() * 2 ** 31),
        replays,
        maxLiterals,
        baseline: typeof input.parent.fitness === 'number' ? input.parent.fitness : null,
        ...t.objective(),
      });
      if (!result.ok) {
        throw new MutationFailed(result.kind === 'crash' ? 'endpoint' : result.kind, result.message, { mutator: 'tune' });
      }
      const check = checkPolicy(result.code);
      if (!check.ok) throw new MutationFailed('parse', `tuned code ${check.message}`, { mutator: 'tune' });
      return { code: result.code, editSummary: result.summary, model: null, promptTokens: null, completionTokens: null, mutator: 'tune' };
    },
  };
}
