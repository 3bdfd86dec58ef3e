/**
 * The control plane (design sections 1 and 7): evolution cycles on snapshots
 * of the data plane's window, in the background and in worker threads;
 * staging of winners; cycles and deployments in the lineage.
 */
export { ControlPlane, type ControlPlaneOptions, type ResumeState } from './control-plane.js';
export { nextDelayMs } from './loop-timing.js';
export { historyMinutes, validationRequest } from './validate-winner.js';
export { ControlPlaneConfigSchema, resolveControlPlaneConfig, type ControlPlaneConfig, type ControlPlaneConfigInput } from './config.js';
export { recordDeployment, recordRollback, registerPolicy, type DeploymentInput, type PolicyOrigin, type RollbackInput } from './deployments.js';
export { CycleFailure, classifyFailure } from './failure.js';
export type { WarmElite } from './state.js';
export type {
  CycleOutcome,
  CycleProgress,
  CycleStatus,
  DeployedPolicy,
  DeployedProvider,
  FailureKind,
  SimClock,
  SnapshotProvider,
  SnapshotRequest,
  StagedPolicy,
  Stager,
  ValidationVerdict,
} from './types.js';
