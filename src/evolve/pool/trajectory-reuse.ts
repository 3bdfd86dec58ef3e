import { continuesAt, MAX_TRAJECTORY_TRIES, reusableCost, type Divergence, type SchedCost } from '../../evaluate/index.js';
import { codeHash } from '../../store/index.js';
import type { DivergedOutcome, EvalOutcome, EvalTask, SnapshotTrajectory } from './task.js';

/** What a run evaluates through: the pool (or anything with its evaluate). */
export interface EvaluatingPool {
  readonly threads: number;
  evaluate(task: EvalTask): Promise<EvalOutcome>;
}

/** What TrajectoryReuse evaluates through: a pool that can also stop a replay where the candidate first answers differently. */
export interface ReplayingPool extends EvaluatingPool {
  evaluateOrDiverge(task: EvalTask & { reuse: Uint8Array }): Promise<EvalOutcome | DivergedOutcome>;
}

/** How the evaluations of a run went: reused a kept trajectory, or simulated. */
export interface TrajectoryCounts {
  reused: number;
  simulated: number;
  /** Simulated although a trajectory was at hand: the child answered some call unlike every one tried. */
  diverged: number;
  /** Of `reused`: the trajectory was neither the task's own code's nor its parent's (another one's with the child's answer where the first tried diverged, or, with neither kept, the snapshot's most recent). */
  reusedOther: number;
}

/**
 * Keeps the recent evaluations' packed trajectories (src/evaluate/trajectory.ts),
 * least recently used first out past `maxBytes`, keyed by code hash and
 * snapshot, and sends a task with its own code's trajectory on that snapshot
 * when that code ran there (the seed that is also the reference), else with
 * its parent's (`reuseFrom`), else with the most recent one there. A neutral
 * child then costs its policy calls instead of a simulation; its evaluation
 * is the one the simulation would give, bit for bit.
 *
 * A child that answers some call unlike its parent is not simulated at
 * once: the worker says where and with which answer, and if another kept
 * trajectory on the snapshot shares the answers before that call and has
 * the child's answer there (the child behaves like a sibling, a seed, an
 * older candidate), that one is tried next, up to MAX_TRAJECTORY_TRIES.
 */
export class TrajectoryReuse implements EvaluatingPool {
  readonly counts: TrajectoryCounts = { reused: 0, simulated: 0, diverged: 0, reusedOther: 0 };
  private readonly kept = new Map<string, SnapshotTrajectory>();
  private bytes = 0;

  constructor(
    private readonly pool: ReplayingPool,
    private readonly maxBytes: number,
  ) {}

  get threads(): number {
    return this.pool.threads;
  }

  async evaluate(task: EvalTask): Promise<EvalOutcome> {
    const index = task.snapshot ?? 0;
    const { reuseFrom, ...rest } = task;
    // The same code's own, if it ran there (a seed that is also the reference): it answers as it did.
    // Else the parent's; else any on the snapshot (every trajectory there starts from the snapshot's first ctx).
    const key = `${codeHash(task.code)}/${index}`;
    const first = this.take(key) ?? (reuseFrom === undefined ? undefined : this.take(`${reuseFrom}/${index}`));
    let tried = first ?? this.latestOn(index);
    const triedAny = tried !== undefined;
    for (let tries = 0; tried && tries < MAX_TRAJECTORY_TRIES; tries++) {
      const outcome = await this.pool.evaluateOrDiverge({ ...rest, record: true, reuse: tried.trajectory });
      if ('diverged' in outcome) {
        tried = this.alternative(index, tried, outcome.diverged);
        continue;
      }
      if (outcome.ok && outcome.reused && tried !== first) this.counts.reusedOther++;
      return this.settle(key, index, outcome, tried, true);
    }
    return this.settle(key, index, await this.pool.evaluate({ ...rest, record: true }), undefined, triedAny);
  }

  /** The kept trajectories of `code` on these snapshots (now the most recently used), for a search from it (a tune task). */
  keptFor(code: string, snapshots: readonly number[]): SnapshotTrajectory[] {
    const hash = codeHash(code);
    const found: SnapshotTrajectory[] = [];
    for (const index of snapshots) {
      const kept = this.take(`${hash}/${index}`);
      if (kept) found.push(kept);
    }
    return found;
  }

  /** Count the outcome and keep the candidate's trajectory under `key` (code hash / snapshot): its own, or the one it reused (the same ctxs, answers and plan costs). */
  private settle(key: string, index: number, outcome: EvalOutcome, tried: SnapshotTrajectory | undefined, triedAny: boolean): EvalOutcome {
    if (!outcome.ok) return outcome;
    if (outcome.reused) this.counts.reused++;
    else {
      this.counts.simulated++;
      if (triedAny) this.counts.diverged++;
    }
    const { trajectory, trajectoryKeys, ...answer } = outcome;
    const own = trajectory && trajectoryKeys ? { trajectory, keys: trajectoryKeys, snapshot: index } : outcome.reused ? tried : undefined;
    if (own) this.keep(key, own);
    return answer;
  }

  /** The most recent other kept trajectory on the snapshot with the keys of `from` before the divergence and its key there (now the most recently used). */
  private alternative(index: number, from: SnapshotTrajectory, at: Divergence): SnapshotTrajectory | undefined {
    let found: [string, SnapshotTrajectory] | undefined;
    for (const entry of this.kept) {
      const k = entry[1];
      if (k !== from && k.snapshot === index && continuesAt(k.keys, from.keys, at)) found = entry;
    }
    return found ? this.take(found[0]) : undefined;
  }

  /** The most recently used trajectory kept on the snapshot. */
  private latestOn(index: number): SnapshotTrajectory | undefined {
    let found: SnapshotTrajectory | undefined;
    for (const k of this.kept.values()) if (k.snapshot === index) found = k;
    return found;
  }

  /** The kept trajectory, now the most recently used. */
  private take(key: string): SnapshotTrajectory | undefined {
    const found = this.kept.get(key);
    if (found) {
      this.kept.delete(key);
      this.kept.set(key, found);
    }
    return found;
  }

  private keep(key: string, kept: SnapshotTrajectory): void {
    const size = sizeOf(kept);
    if (size > this.maxBytes) return;
    const old = this.kept.get(key);
    if (old) {
      this.bytes -= sizeOf(old);
      this.kept.delete(key);
    }
    this.kept.set(key, kept);
    this.bytes += size;
    for (const [k, t] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(k);
      this.bytes -= sizeOf(t);
    }
  }
}

/** The packed bytes; the keys are a few percent of them. */
function sizeOf(kept: SnapshotTrajectory): number {
  return kept.trajectory.byteLength;
}

/**
 * The pool a run or a cycle evaluates candidates through: wrapped in a
 * TrajectoryReuse of `cacheMb` MB when reuse can apply (a cache, a
 * deterministic cost, and a local pool that can stop a replay where it
 * diverges: a queue backend's tasks go through Redis without trajectories),
 * else undefined.
 */
export function trajectoryReuseFor(pool: EvaluatingPool, cacheMb: number, cost: SchedCost, localPool: boolean): TrajectoryReuse | undefined {
  return cacheMb > 0 && localPool && reusableCost(cost) && replaying(pool) ? new TrajectoryReuse(pool, cacheMb * 2 ** 20) : undefined;
}

function replaying(pool: EvaluatingPool): pool is ReplayingPool {
  return typeof (pool as Partial<ReplayingPool>).evaluateOrDiverge === 'function';
}
