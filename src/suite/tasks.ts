import type { Evaluation, SchedCost, Snapshot } from '../evaluate/index.js';
import type { Role } from '../sim/index.js';
import type { SplitRun } from './split-run.js';

/**
 * Where a worker gets the snapshot a task replays. A scenario is named by
 * file and seed and built in the worker (a trace of hours takes about a
 * second to generate but longer to copy between threads); `key` identifies
 * the snapshot so a worker builds it once for all the tasks that share it.
 */
export type SnapshotSource =
  | { kind: 'scenario'; key: string; file: string; seed: number; contentHash: string }
  | { kind: 'inline'; key: string; snapshot: Snapshot }
  /** v8-serialised, shared between threads without a copy (a queue worker's snapshot, fetched once from Redis). */
  | { kind: 'serialized'; key: string; bytes: SharedArrayBuffer };

export interface StaticTask {
  kind: 'static';
  source: SnapshotSource;
  split: string;
  roles: Role[];
  capFactor: number;
}

export interface PolicyTask {
  kind: 'policy';
  source: SnapshotSource;
  policy: { name: string; source: string };
  schedCost: SchedCost;
  capFactor: number;
}

/** Sent once to every worker before the pool closes (src/common/worker-drain.ts). */
export type { DrainTask } from '../common/worker-drain.js';
import type { DrainTask } from '../common/worker-drain.js';

export type SuiteTask = StaticTask | PolicyTask;
export type WorkerTask = SuiteTask | DrainTask;
export type TaskResult<T extends SuiteTask> = T extends StaticTask ? SplitRun : Evaluation;

/** Where the suite's runs go: the local SuitePool, or a queue of workers (queue-runner.ts). Results are placed by task. */
export interface SuiteRunner {
  readonly threads: number;
  run(task: StaticTask): Promise<SplitRun>;
  run(task: PolicyTask): Promise<Evaluation>;
  close(): Promise<void>;
}
