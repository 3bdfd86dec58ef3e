import type { Divergence, Evaluation, SchedCost, Snapshot } from '../../evaluate/index.js';
import type { SandboxOptions } from '../../sandbox/index.js';
import type { PackedSnapshot } from './packed-snapshot.js';
import type { TuneRequest } from '../mutators/tune/request.js';

/** Given once to every worker (structured-cloned at pool start). */
export interface WorkerSetup {
  snapshot: Snapshot;
  schedCost: SchedCost;
  sandbox: SandboxOptions;
  wallLimitMs: number;
  /**
   * More snapshots every worker holds besides `snapshot` (index 0): index i
   * is moreSnapshots[i - 1]. A multi-snapshot run (several training
   * scenarios or windows, validation realisations) keeps them all in one pool.
   */
  moreSnapshots?: Snapshot[];
  /** tune and knob-search points first try their task's first trajectory on the snapshot (src/evaluate/trajectory.ts). */
  reuseInSearch?: boolean;
}

/** What a worker receives: the snapshot itself, or packed (EvaluatorPool.open). */
export type WorkerData = Omit<WorkerSetup, 'snapshot'> & ({ snapshot: Snapshot; packed?: undefined } | { snapshot?: undefined; packed: PackedSnapshot });

export interface EvalTask {
  kind?: 'evaluate';
  candidateId: number;
  name: string;
  code: string;
  /** Which of the worker's snapshots to replay (default 0, see WorkerSetup.moreSnapshots). */
  snapshot?: number;
  /** The code hash of the candidate whose trajectory to try first (its parent): see TrajectoryReuse. */
  reuseFrom?: string;
  /** A packed trajectory to try first (src/evaluate/trajectory.ts): set by TrajectoryReuse. */
  reuse?: Uint8Array;
  /** Return the evaluation's own packed trajectory. */
  record?: boolean;
  /** With `reuse`: if the candidate answers some call unlike it, answer where (a DivergedOutcome) instead of simulating. */
  stopAtDivergence?: boolean;
}

/** Tune a candidate's numeric constants inside the worker (src/evolve/mutators/tune): many short replays, one answer. */
export interface TuneTask {
  kind: 'tune';
  request: TuneRequest;
  /** Trajectories of the candidate on its snapshots, which the search's points try first (TrajectoryReuse.keptFor); not part of the request, whose content is its address. */
  trajectories?: SnapshotTrajectory[];
}

/** A packed trajectory (src/evaluate/trajectory.ts) with its calls' answer keys, in order. */
export interface KeyedTrajectory {
  trajectory: Uint8Array;
  keys: readonly string[];
}

/** A keyed trajectory on one of the worker's snapshots. */
export interface SnapshotTrajectory extends KeyedTrajectory {
  snapshot: number;
}

export interface PooledTuneTask extends TuneTask {
  clock: SharedArrayBuffer;
}

/** What the pool sends: the task and where the worker notes when it began (see TaskClock). */
export interface PooledEvalTask extends EvalTask {
  clock: SharedArrayBuffer;
}

/**
 * What a worker returns: never throws for a bad candidate, only for a broken worker.
 *
 * - `timeout`: the candidate ran past its wall-clock budget (the evaluator's
 *   deadline between policy calls, after a call stopped by the sandbox's own
 *   limits). The candidate's failure: it is recorded as failed, not retried.
 * - `crash`: not the candidate's doing: the evaluation threw (a bug of ours),
 *   or the worker stopped answering and was terminated. Infrastructure.
 */
export type EvalOutcome =
  | { ok: true; evaluation: Evaluation; wallMs: number; trajectory?: Uint8Array; trajectoryKeys?: string[]; reused?: boolean }
  | { ok: false; kind: 'timeout' | 'crash'; message: string; wallMs: number };

/** A task with `stopAtDivergence` whose candidate answered a call of its `reuse` trajectory differently: nothing was simulated. */
export interface DivergedOutcome {
  diverged: Divergence;
  wallMs: number;
}

/**
 * When a worker began a task (Date.now(), shared by all threads), so that the
 * pool's backstop counts the evaluation's time, not the time the task waited
 * for a free thread or a replacement worker to start.
 */
export const TaskClock = {
  create(): SharedArrayBuffer {
    return new SharedArrayBuffer(16);
  },
  start(buffer: SharedArrayBuffer): void {
    new Float64Array(buffer, 8, 1)[0] = Date.now();
    Atomics.store(new Int32Array(buffer, 0, 1), 0, 1);
  },
  /** Ms since the worker began the task, or null while it waits. */
  elapsed(buffer: SharedArrayBuffer): number | null {
    if (Atomics.load(new Int32Array(buffer, 0, 1), 0) !== 1) return null;
    return Date.now() - new Float64Array(buffer, 8, 1)[0]!;
  },
};

/** Sent once to every worker before the pool closes (src/common/worker-drain.ts). */
export type { DrainTask } from '../../common/worker-drain.js';
import type { DrainTask } from '../../common/worker-drain.js';

export type WorkerTask = PooledEvalTask | PooledTuneTask | DrainTask;
