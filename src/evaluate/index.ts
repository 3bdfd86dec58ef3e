/** Snapshot replay -> fitness (T_total), breakdown, metrics, failures, features (design section 6). */
export { evaluatePolicy, evaluateTracked, evaluateOrDiverge, replaySnapshot, type TrackedOptions, type TrackedEvaluation, EvaluationTimeout, type Evaluation, type EvaluateOptions, type Features, type FailureCount } from './evaluate.js';
export { buildSnapshot, buildSnapshotFromStrings, snapshotKnobsAtStart, type Snapshot, type SnapshotSpec, type SnapshotStrings } from './snapshot.js';
export { computeBreakdown, type Breakdown } from './breakdown.js';
export { parseSchedCost, chargedSeconds, formatSchedCost, DEFAULT_SCHED_COST, NS_PER_OP, NS_PER_CALL, type SchedCost, type CallCost } from './sched-cost.js';
export { sandboxHook } from './sandbox-policy.js';
export { continuesAt, MAX_TRAJECTORY_TRIES, reusableCost, type Divergence } from './trajectory.js';
export { snapshotEngineModel, forgetSnapshotEngineModels, type SnapshotEngineModel } from './engine-model.js';
/** The largest cluster a snapshot may describe (the simulator's limit). */
export { MAX_NODES } from '../sim/index.js';
