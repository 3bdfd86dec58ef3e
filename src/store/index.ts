/**
 * The lineage store (design section 8): every candidate of every run, its
 * parents, code, scores and fate, in SQLite. Schema: docs/lineage-schema.md.
 */
export { openLineageStore, LineageStore, type OpenOptions } from './store.js';
export { codeHash, normaliseWhitespace } from '../common/code-hash.js';
export { SCHEMA_VERSION } from './schema.js';
export type { RunCandidateStats } from './run-stats.js';
export type { JsonObject, JsonValue } from './json.js';
export type {
  AncestryEntry,
  Candidate,
  CandidateRef,
  CandidateStatus,
  CandidateSummary,
  Checkpoint,
  CheckpointState,
  ChildLink,
  CycleEnd,
  CycleRecord,
  CycleStatus,
  DeploymentRecord,
  MigrationRecord,
  NewCandidate,
  NewCycle,
  NewDeployment,
  NewMigration,
  NewRun,
  NewValidation,
  SnapshotScore,
  ValidationRecord,
  ParentLink,
  ParentRole,
  RunRecord,
  RunStatus,
  RunSummary,
} from './types.js';
