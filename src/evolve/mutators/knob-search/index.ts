import { createSearchMutator, type Tuner } from '../tune/index.js';
import type { Mutator } from '../types.js';

export { inForceAtStart, runKnobSearch, type KnobInForce } from './run.js';

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
  return createSearchMutator('knob-search', tuner, { search: 'knobs', replays: options.replays ?? 8, maxLiterals: 0 }, {
    noTuner: 'no evaluator to search with (knob-search runs inside an evolution run)',
    result: 'searched code',
  });
}
