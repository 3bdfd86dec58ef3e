/**
 * The data plane (design section 1, issue #6): serves a workload in the
 * simulator paced against the wall clock, under the deployed policy called
 * in its sandbox every monitoring step; hot-swaps policies staged as files
 * (validate, deploy at the next step, roll back after repeated failures);
 * records the recent past into a fixed-size ring and cuts evaluator
 * snapshots from it.
 *
 * The control plane uses `stagePolicy` (write a candidate for deployment)
 * and `DataPlane.snapshot` / `captureWindow` + `snapshotFromCapture` (what to
 * evolve on). The serve command creates a `DataPlane`, runs it with
 * `runPaced`, prints `status()`, writes `events` into the lineage and
 * `finish()` into its report.
 */
export {
  DataPlane,
  deploymentSegments,
  type DataPlaneOptions,
  type DataPlaneResult,
  type DataPlaneStatus,
  type DeploymentSegment,
  type RunPacedOptions,
} from './data-plane.js';
export { PolicySlot, type PolicySlotOptions, type PolicySpec, type SlotEvent, type OfferResult } from './policy-slot.js';
export {
  stagePolicy,
  readStaged,
  settleStaged,
  parseStaged,
  settledDir,
  StagingArea,
  StagedHeaderSchema,
  STAGED_HEADER_PREFIX,
  type StageRequest,
  type StagedPolicy,
  type StagedRead,
  type StagedHeader,
  type StagedOutcome,
} from './staging.js';
export { snapshotFromCapture } from './snapshot.js';
export {
  WindowRecorder,
  SnapshotNotReady,
  ringCapacity,
  type WindowCapture,
  type WindowRequest,
  type StepRecord,
  type NodeRecord,
  type PolicyRef,
  type RecordingMeta,
} from './window.js';
export { RecordingSource, type RecordedRequest, type RecordedEnd, type Arrived } from './recording-source.js';
export { RingBuffer } from './ring-buffer.js';
export { computeSegments, type Segment } from './segments.js';
export { runPaced, realClock, FakeClock, type Clock, type PaceOptions, type PaceResult, type PaceStop, type Steppable } from './pacing.js';
