import type { Mutator } from '../types.js';
import { createSearchMutator, type Tuner } from './search-mutator.js';

export type { TuneRequest } from './request.js';
export { SearchMemo, type SearchMemoSnapshot } from './memo.js';
export { runTuning, type TuneResult } from './run.js';
export { createSearchMutator, type SearchFields, type Tuner } from './search-mutator.js';

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
  return createSearchMutator('tune', tuner, { replays: options.replays ?? 8, maxLiterals: options.maxLiterals ?? 4 }, {
    noTuner: 'no evaluator to tune with (tune runs inside an evolution run)',
    result: 'tuned code',
  });
}
