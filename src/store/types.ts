import type { JsonObject, JsonValue } from './json.js';

/** Records as the store returns them: camelCase, JSON columns parsed, ids as numbers. */

export type RunStatus = 'running' | 'finished' | 'interrupted';

export interface NewRun {
  name?: string | null;
  /** The run's configuration as the user gave it (JSON object). */
  config: Readonly<Record<string, unknown>>;
  seed: number;
}

export interface RunRecord {
  id: number;
  name: string | null;
  config: JsonObject;
  seed: number;
  /** ISO-8601 UTC. */
  startedAt: string;
  endedAt: string | null;
  status: RunStatus;
}

export interface RunSummary extends RunRecord {
  candidates: number;
  bestFitness: number | null;
  /** Last iteration of the checkpoint, null before the first commit. */
  lastIteration: number | null;
}

export type CandidateStatus = 'evaluated' | 'failed' | 'rejected';
export type ParentRole = 'parent' | 'inspiration';

/**
 * A candidate to write. `Ref` is how it names its parents: an id, or (inside
 * commitIteration) `{ batch: i }` for the i-th candidate of the same batch.
 */
export interface NewCandidate<Ref = number> {
  cycle?: number | null;
  island: number;
  mutator: string;
  model?: string | null;
  editSummary?: string | null;
  code: string;
  /** Defaults to codeHash(code). */
  codeHash?: string;
  status: CandidateStatus;
  /** Required unless status is 'evaluated': why it failed or was rejected. */
  failureKind?: string | null;
  failureMessage?: string | null;
  /** T_total in seconds, lower is better; required when status is 'evaluated'. */
  fitness?: number | null;
  breakdown?: Readonly<Record<string, number>> | null;
  metrics?: Readonly<Record<string, unknown>> | null;
  features?: Readonly<Record<string, number>> | null;
  /** MAP-Elites cell key on its island, e.g. "2,0,3"; null when not placed. */
  cell?: string | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  /** A multi-snapshot run: the candidate's score on each training snapshot (its fitness aggregates them). */
  snapshots?: readonly SnapshotScore[] | null;
  /** The parent(s) it was mutated from. */
  parents?: readonly Ref[];
  /** Other elites the mutator was shown. */
  inspirations?: readonly Ref[];
}

/** Refer to a committed candidate by id, or to one earlier in the same commitIteration batch. */
export type CandidateRef = number | { batch: number };

export interface CandidateSummary {
  id: number;
  run: number;
  cycle: number | null;
  island: number;
  iteration: number;
  mutator: string;
  model: string | null;
  editSummary: string | null;
  codeHash: string;
  status: CandidateStatus;
  failureKind: string | null;
  failureMessage: string | null;
  fitness: number | null;
  breakdown: Record<string, number> | null;
  features: Record<string, number> | null;
  cell: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  createdAt: string;
}

export interface ParentLink {
  id: number;
  role: ParentRole;
}

/** A candidate with everything: its code, metrics and parent links. */
export interface Candidate extends CandidateSummary {
  code: string;
  metrics: JsonObject | null;
  parents: ParentLink[];
  /** Per training snapshot (a multi-snapshot run); null otherwise. */
  snapshots: SnapshotScore[] | null;
  /** Its fitness on the run's validation snapshots, if it was validated. */
  validation: ValidationRecord | null;
}

/** One candidate on one snapshot of a multi-snapshot fitness. */
export interface SnapshotScore {
  label: string;
  tTotal: number;
  /** tTotal / the reference policy's tTotal on the same snapshot. */
  ratio: number;
  throughput: number;
  failures: number;
}

export interface NewValidation {
  candidate: number;
  /** Mean ratio over the validation snapshots; null when it failed there. */
  fitness: number | null;
  failure?: string | null;
  snapshots: readonly SnapshotScore[];
}

export interface ValidationRecord {
  candidate: number;
  run: number;
  /** The iteration after which it was validated. */
  iteration: number;
  fitness: number | null;
  failure: string | null;
  snapshots: SnapshotScore[];
  createdAt: string;
}

export interface AncestryEntry {
  candidate: CandidateSummary;
  /** Shortest number of parent steps from the starting candidate (0 = itself). */
  depth: number;
  /** Its own parents (role 'parent'), all of which are in the same ancestry. */
  parents: number[];
}

export interface ChildLink {
  candidate: CandidateSummary;
  role: ParentRole;
}

export interface NewMigration {
  fromIsland: number;
  toIsland: number;
  candidate: CandidateRef;
}

export interface MigrationRecord {
  id: number;
  run: number;
  iteration: number;
  fromIsland: number;
  toIsland: number;
  candidate: number;
  createdAt: string;
}

/** Evolution state saved with each iteration: any JSON values under keys of the caller's choice. */
export type CheckpointState = Readonly<Record<string, unknown>>;

export interface Checkpoint {
  /** The last iteration committed; a resumed run continues at iteration + 1. */
  iteration: number;
  state: Record<string, JsonValue>;
}

export type CycleStatus = 'running' | 'finished' | 'timed_out' | 'failed' | 'interrupted';

export interface NewCycle {
  run: number;
  label?: string | null;
  /** A description of the snapshot (window, seed, hash), not the trace itself. */
  snapshot?: unknown;
  /** Simulated seconds. */
  startedAt: number;
}

export interface CycleRecord {
  id: number;
  run: number;
  label: string | null;
  snapshot: JsonValue | null;
  startedAt: number;
  endedAt: number | null;
  winner: number | null;
  status: CycleStatus;
  /** Why it ended as it did (failed: the error; finished: staged or not, and why). */
  reason: string | null;
  /** The cycle's best candidate and its T_total on the snapshot. */
  bestCandidate: number | null;
  bestFitness: number | null;
  /** The policy that was deployed during the cycle, as scored on the same snapshot. */
  deployedCandidate: number | null;
  deployedFitness: number | null;
  createdAt: string;
}

/** How a cycle ended (finishCycle). */
export interface CycleEnd {
  /** Simulated seconds. */
  endedAt: number;
  status: Exclude<CycleStatus, 'running'>;
  /** The candidate the cycle chose to deploy (staged), if any. */
  winner?: number | null;
  reason?: string | null;
  best?: { candidate: number; fitness: number | null } | null;
  deployed?: { candidate: number; fitness: number | null } | null;
}

export interface NewDeployment {
  run: number;
  cycle?: number | null;
  candidate: number;
  /** Simulated seconds. */
  deployedAt: number;
  fitnessOnSnapshot?: number | null;
  replacedCandidate?: number | null;
  reason?: string | null;
}

export interface DeploymentRecord {
  id: number;
  run: number;
  cycle: number | null;
  candidate: number;
  deployedAt: number;
  fitnessOnSnapshot: number | null;
  replacedCandidate: number | null;
  rolledBackAt: number | null;
  reason: string | null;
  rollbackReason: string | null;
  createdAt: string;
}
