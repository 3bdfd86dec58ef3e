import { continuesAt, evaluateOrDiverge, evaluateTracked, MAX_TRAJECTORY_TRIES, type Evaluation, type Snapshot, type TrackedOptions } from '../../evaluate/index.js';
import type { KeyedTrajectory, SnapshotTrajectory } from './task.js';

/**
 * The trajectories of one search's replays in a worker (tune, knob-search),
 * per snapshot. Most points answer every policy call as an earlier point did
 * (a constant no decision crosses): a point tries the first trajectory kept
 * on its snapshot and, where it diverges, another kept one with its answer
 * there (continuesAt), up to MAX_TRAJECTORY_TRIES; only then is it simulated,
 * and its own trajectory kept (at most `maxKept` per snapshot). The same
 * evaluations as plain replays, bit for bit.
 */
export class SearchTrajectories {
  private readonly kept = new Map<number, KeyedTrajectory[]>();

  constructor(
    /** Record the simulated points' trajectories (off: only `given` ones are tried). */
    private readonly record: boolean,
    given: readonly SnapshotTrajectory[] = [],
    private readonly maxKept = 16,
  ) {
    for (const t of given) this.kept.set(t.snapshot, [...(this.kept.get(t.snapshot) ?? []), t]);
  }

  evaluate(snapshot: Snapshot, index: number, policy: { name: string; source: string }, options: TrackedOptions): Evaluation {
    const list = this.kept.get(index) ?? [];
    let tried: KeyedTrajectory | undefined = list[0];
    for (let tries = 0; tried && tries < MAX_TRAJECTORY_TRIES; tries++) {
      const outcome = evaluateOrDiverge(snapshot, policy, { ...options, reuse: tried.trajectory });
      if (!('divergence' in outcome)) return outcome.evaluation;
      const from: KeyedTrajectory = tried;
      tried = list.find((k) => k !== from && continuesAt(k.keys, from.keys, outcome.divergence));
    }
    const tracked = evaluateTracked(snapshot, policy, { ...options, record: this.record && list.length < this.maxKept });
    if (tracked.trajectory && tracked.trajectoryKeys) {
      list.push({ trajectory: tracked.trajectory, keys: tracked.trajectoryKeys });
      this.kept.set(index, list);
    }
    return tracked.evaluation;
  }
}
