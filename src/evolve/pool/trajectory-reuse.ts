import { reusableCost, type SchedCost } from '../../evaluate/index.js';
import { codeHash } from '../../store/index.js';
import type { EvalOutcome, EvalTask } from './task.js';

/** What TrajectoryReuse evaluates through: the pool (or anything with its evaluate). */
export interface EvaluatingPool {
  readonly threads: number;
  evaluate(task: EvalTask): Promise<EvalOutcome>;
}

/** How the evaluations of a run went: reused a parent's trajectory, or simulated. */
export interface TrajectoryCounts {
  reused: number;
  simulated: number;
  /** Simulated although a parent trajectory was at hand: the child answered some call differently. */
  diverged: number;
}

/**
 * Keeps the recent evaluations' packed trajectories (src/evaluate/trajectory.ts),
 * least recently used first out past `maxBytes`, keyed by code hash and
 * snapshot, and sends a task that names its parent (`reuseFrom`) with the
 * parent's trajectory on that snapshot. A neutral child then costs its
 * policy calls instead of a simulation; its evaluation is the one the
 * simulation would give, bit for bit.
 */
export class TrajectoryReuse implements EvaluatingPool {
  readonly counts: TrajectoryCounts = { reused: 0, simulated: 0, diverged: 0 };
  private readonly kept = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(
    private readonly pool: EvaluatingPool,
    private readonly maxBytes: number,
  ) {}

  get threads(): number {
    return this.pool.threads;
  }

  async evaluate(task: EvalTask): Promise<EvalOutcome> {
    const index = task.snapshot ?? 0;
    const reuse = task.reuseFrom === undefined ? undefined : this.take(`${task.reuseFrom}/${index}`);
    const { reuseFrom: _from, ...rest } = task;
    const outcome = await this.pool.evaluate({ ...rest, record: true, ...(reuse ? { reuse } : {}) });
    if (!outcome.ok) return outcome;
    if (outcome.reused) this.counts.reused++;
    else {
      this.counts.simulated++;
      if (reuse) this.counts.diverged++;
    }
    const { trajectory, ...answer } = outcome;
    // A reused evaluation's trajectory is the one it reused (src/evaluate/trajectory.ts).
    const own = trajectory ?? (outcome.reused ? reuse : undefined);
    if (own) this.keep(`${codeHash(task.code)}/${index}`, own);
    return answer;
  }

  /** The kept trajectory, now the most recently used. */
  private take(key: string): Uint8Array | undefined {
    const found = this.kept.get(key);
    if (found) {
      this.kept.delete(key);
      this.kept.set(key, found);
    }
    return found;
  }

  private keep(key: string, trajectory: Uint8Array): void {
    if (trajectory.byteLength > this.maxBytes) return;
    const old = this.kept.get(key);
    if (old) {
      this.bytes -= old.byteLength;
      this.kept.delete(key);
    }
    this.kept.set(key, trajectory);
    this.bytes += trajectory.byteLength;
    for (const [k, t] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(k);
      this.bytes -= t.byteLength;
    }
  }
}

/**
 * The pool a run or a cycle evaluates candidates through: wrapped in a
 * TrajectoryReuse of `cacheMb` MB when reuse can apply (a cache, a
 * deterministic cost, and a local pool: a queue backend's tasks go through
 * Redis without trajectories), else undefined.
 */
export function trajectoryReuseFor(pool: EvaluatingPool, cacheMb: number, cost: SchedCost, localPool: boolean): TrajectoryReuse | undefined {
  return cacheMb > 0 && localPool && reusableCost(cost) ? new TrajectoryReuse(pool, cacheMb * 2 ** 20) : undefined;
}
