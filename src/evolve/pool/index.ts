/** Parallel, sandboxed evaluation of candidates in a piscina worker pool. */
export { backstopFor, EvaluatorPool, type EvaluatorPoolOptions } from './evaluator-pool.js';
export { packSnapshot, unpackSnapshot, type PackedSnapshot } from './packed-snapshot.js';
export type { DivergedOutcome, EvalOutcome, EvalTask, WorkerSetup } from './task.js';
export { inBatch, TrajectoryReuse, trajectoryReuseFor, type EvaluatingPool, type ReplayingPool, type TrajectoryBatches, type TrajectoryCounts } from './trajectory-reuse.js';
