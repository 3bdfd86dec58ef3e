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
 *
 * What a task may try does not depend on which worker finished first, so
 * that a run's counts (and its `--json`) are the same on every run: a task
 * reads the trajectories *published* when it was sent, and what it leaves
 * waits until the caller publishes its batch (TrajectoryBatches: an
 * iteration at its commit, in the order its tasks were sent). Trajectories
 * of a batch still in flight are never tried, even once they are done.
 */
export class TrajectoryReuse implements EvaluatingPool, TrajectoryBatches {
  readonly counts: TrajectoryCounts = { reused: 0, simulated: 0, diverged: 0, reusedOther: 0 };
  /** Published, least recently used first; replaced (never changed) at each publish, so a task in flight keeps the one it was sent with. */
  private kept = new Map<string, SnapshotTrajectory>();
  private bytes = 0;
  /** Tasks sent so far: a task's number orders what it leaves among its batch's. */
  private sent = 0;
  /** What finished tasks left, until their batch is published. */
  private readonly waiting = new Map<number, Left>();

  constructor(
    private readonly pool: ReplayingPool,
    private readonly maxBytes: number,
  ) {}

  get threads(): number {
    return this.pool.threads;
  }

  async evaluate(task: EvalTask): Promise<EvalOutcome> {
    const seq = this.sent++;
    const kept = this.kept;
    const index = task.snapshot ?? 0;
    const { reuseFrom, ...rest } = task;
    const used: string[] = [];
    const look = (key: string): SnapshotTrajectory | undefined => {
      const found = kept.get(key);
      if (found) used.push(key);
      return found;
    };
    // The same code's own, if it ran there (a seed that is also the reference): it answers as it did.
    // Else the parent's; else any on the snapshot (every trajectory there starts from the snapshot's first ctx).
    const key = `${codeHash(task.code)}/${index}`;
    const first = look(key) ?? (reuseFrom === undefined ? undefined : look(`${reuseFrom}/${index}`));
    let tried = first ?? latestOn(kept, index, look);
    const triedAny = tried !== undefined;
    try {
      for (let tries = 0; tried && tries < MAX_TRAJECTORY_TRIES; tries++) {
        const answer = await this.pool.evaluateOrDiverge({ ...rest, record: true, reuse: tried.trajectory });
        if ('diverged' in answer) {
          tried = alternative(kept, index, tried, answer.diverged, look);
          continue;
        }
        if (answer.ok && answer.reused && tried !== first) this.counts.reusedOther++;
        return this.settle(seq, key, index, answer, tried, true, used);
      }
      return this.settle(seq, key, index, await this.pool.evaluate({ ...rest, record: true }), undefined, triedAny, used);
    } finally {
      // A task that failed or threw leaves no trajectory, but what it read is used all the same.
      if (!this.waiting.has(seq)) this.waiting.set(seq, { used });
    }
  }

  /** The next task's number: the tasks sent between two marks are a batch (TrajectoryBatches). */
  mark(): number {
    return this.sent;
  }

  /**
   * Publish what the tasks numbered from .. to - 1 left (every one of them
   * is done), in their order: each one's trajectories read become the most
   * recently used, then its own is kept, the least recently used going past
   * the cache size. Tasks sent from now on read the result.
   */
  publish(from: number, to: number): void {
    const next = new Map(this.kept);
    for (let seq = from; seq < to; seq++) {
      const left = this.waiting.get(seq);
      if (!left) continue;
      this.waiting.delete(seq);
      for (const key of left.used) touch(next, key);
      if (left.own) this.keep(next, left.own[0], left.own[1]);
    }
    this.kept = next;
  }

  /** The published trajectories of `code` on these snapshots, for a search from it (a tune task). */
  keptFor(code: string, snapshots: readonly number[]): SnapshotTrajectory[] {
    const hash = codeHash(code);
    const found: SnapshotTrajectory[] = [];
    for (const index of snapshots) {
      const kept = this.kept.get(`${hash}/${index}`);
      if (kept) found.push(kept);
    }
    return found;
  }

  /** Count the outcome and leave the candidate's trajectory under `key` (code hash / snapshot), for its batch's publish: its own, or the one it reused (the same ctxs, answers and plan costs). */
  private settle(
    seq: number,
    key: string,
    index: number,
    outcome: EvalOutcome,
    tried: SnapshotTrajectory | undefined,
    triedAny: boolean,
    used: string[],
  ): EvalOutcome {
    if (!outcome.ok) return outcome;
    if (outcome.reused) this.counts.reused++;
    else {
      this.counts.simulated++;
      if (triedAny) this.counts.diverged++;
    }
    const { trajectory, trajectoryKeys, ...answer } = outcome;
    const own = trajectory && trajectoryKeys ? { trajectory, keys: trajectoryKeys, snapshot: index } : outcome.reused ? tried : undefined;
    this.waiting.set(seq, own ? { used, own: [key, own] } : { used });
    return answer;
  }

  private keep(kept: Map<string, SnapshotTrajectory>, key: string, trajectory: SnapshotTrajectory): void {
    const size = sizeOf(trajectory);
    if (size > this.maxBytes) return;
    const old = kept.get(key);
    if (old) {
      this.bytes -= sizeOf(old);
      kept.delete(key);
    }
    kept.set(key, trajectory);
    this.bytes += size;
    for (const [k, t] of kept) {
      if (this.bytes <= this.maxBytes) break;
      kept.delete(k);
      this.bytes -= sizeOf(t);
    }
  }
}

/** What a finished task left for its batch's publish: the keys of the trajectories it read, and its own under its key. */
interface Left {
  used: string[];
  own?: [string, SnapshotTrajectory];
}

/**
 * Where a caller's batches begin and end, so that what a batch left is
 * published at a point of the caller's choosing (an iteration's commit),
 * not as its tasks finish. A caller that sends tasks through a
 * TrajectoryReuse and never publishes gets no reuse, only simulations.
 */
export interface TrajectoryBatches {
  mark(): number;
  publish(from: number, to: number): void;
}

/** Send `send`'s tasks as one batch and publish it once they are all done (settled either way). */
export async function inBatch<T>(batches: TrajectoryBatches | undefined, send: () => Promise<T>): Promise<T> {
  const from = batches?.mark() ?? 0;
  const done = send();
  const to = batches?.mark() ?? 0;
  try {
    return await done;
  } finally {
    batches?.publish(from, to);
  }
}

/** The most recent other kept trajectory on the snapshot with the keys of `from` before the divergence and its key there. */
function alternative(
  kept: Map<string, SnapshotTrajectory>,
  index: number,
  from: SnapshotTrajectory,
  at: Divergence,
  look: (key: string) => SnapshotTrajectory | undefined,
): SnapshotTrajectory | undefined {
  let found: string | undefined;
  for (const [key, k] of kept) if (k !== from && k.snapshot === index && continuesAt(k.keys, from.keys, at)) found = key;
  return found === undefined ? undefined : look(found);
}

/** The most recently used trajectory kept on the snapshot. */
function latestOn(kept: Map<string, SnapshotTrajectory>, index: number, look: (key: string) => SnapshotTrajectory | undefined): SnapshotTrajectory | undefined {
  let found: string | undefined;
  for (const [key, k] of kept) if (k.snapshot === index) found = key;
  return found === undefined ? undefined : look(found);
}

/** The kept trajectory (if still kept), now the most recently used. */
function touch(kept: Map<string, SnapshotTrajectory>, key: string): void {
  const found = kept.get(key);
  if (found) {
    kept.delete(key);
    kept.set(key, found);
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
