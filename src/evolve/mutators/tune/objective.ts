import { EvaluationTimeout, type Evaluation } from '../../../evaluate/index.js';
import type { TuneRequest } from './request.js';

/**
 * The objective a search in a pool worker minimises (tune's (1+1)-ES,
 * knob-search): the mean over the request's training snapshots of T_total /
 * reference (T_total itself where the reference is null), with one replay per
 * snapshot counted in `replays`. A point that fails (a policy failure, a
 * timeout) is Infinity, worse than any other; it stops at its first failing
 * snapshot, so it may cost fewer replays.
 */
export interface CountedObjective {
  (code: string): number;
  readonly replays: number;
}

export function countedObjective(
  request: Pick<TuneRequest, 'snapshots' | 'references'>,
  replay: (code: string, snapshot: number) => Evaluation,
): CountedObjective {
  let replays = 0;
  const objective = (code: string): number => {
    let sum = 0;
    for (let i = 0; i < request.snapshots.length; i++) {
      replays++;
      let e: Evaluation;
      try {
        e = replay(code, request.snapshots[i]!);
      } catch (error) {
        if (error instanceof EvaluationTimeout) return Infinity;
        throw error;
      }
      if (e.failures.length > 0) return Infinity;
      const ref = request.references[i] ?? null;
      sum += ref === null ? e.fitness.tTotal : e.fitness.tTotal / ref;
    }
    return sum / request.snapshots.length;
  };
  Object.defineProperty(objective, 'replays', { get: () => replays });
  return objective as CountedObjective;
}

/** An objective as the summaries print it. */
export function formatObjective(v: number): string {
  return Number.isFinite(v) ? v.toPrecision(6) : 'failed';
}
