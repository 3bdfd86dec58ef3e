import type { Snapshot } from '../evaluate/index.js';

/** What a snapshot request asks of the data plane (minutes of its recorded window). */
export interface SnapshotRequest {
  windowMinutes: number;
  warmupMinutes: number;
  /** The window ends this many minutes before the newest recorded step (validation: the window before the training one). */
  endMinutesAgo?: number;
}

/** The data plane's recorded window, as the evaluator replays it. May throw (nothing recorded yet): the cycle fails, the loop goes on. */
export type SnapshotProvider = (request: SnapshotRequest) => Snapshot | Promise<Snapshot>;

/** The policy the data plane serves right now. */
export interface DeployedPolicy {
  name: string;
  code: string;
  /** Its candidate row, when known (registerPolicy, a staged winner); null for a policy the lineage has not seen. */
  candidateId: number | null;
}

export type DeployedProvider = () => DeployedPolicy;

/** A winner as staged for the data plane (the data plane's `stagePolicy` takes this). */
export interface StagedPolicy {
  code: string;
  candidateId: number;
  name: string;
  /** Its T_total on the cycle's snapshot. */
  fitness?: number;
  /** The cycle that chose it. */
  cycle?: number;
  /** Why it was staged (one line). */
  reason?: string;
}

/** Writes the staging file atomically (temporary file, then rename); injected by the caller. */
export type Stager = (dir: string, policy: StagedPolicy) => unknown;

/** Simulated seconds of the served cluster (the clock of cycles and deployments in the lineage). */
export type SimClock = () => number;

export type CycleStatus = 'finished' | 'timed_out' | 'failed' | 'interrupted';

/**
 * Why a cycle failed, which decides what the loop does next:
 * - infrastructure (endpoint down, database busy or full, a worker that died,
 *   staging could not write): retried, with an exponential backoff;
 * - snapshot (the data plane had no usable window), candidates (every
 *   starting candidate failed, or the deployed policy could not be scored):
 *   not retried as such; the next cycle, on the next snapshot, comes after the
 *   base backoff;
 * - internal: a bug, logged; the loop still goes on.
 */
export type FailureKind = 'infrastructure' | 'snapshot' | 'candidates' | 'internal';

export interface CycleOutcome {
  /** Null only when not even the cycle row could be written (the database is unavailable). */
  cycleId: number | null;
  status: CycleStatus;
  /** The cycle's best candidate and its T_total on the snapshot. */
  best: { candidateId: number; tTotal: number } | null;
  /** The deployed policy scored on the same snapshot (its row in this cycle). */
  deployed: { candidateId: number; tTotal: number | null } | null;
  /** Shortcut: deployed?.tTotal. */
  deployedOnSnapshot: number | null;
  staged: boolean;
  /** What was staged, when staged. */
  winner: StagedPolicy | null;
  /** One line: why it was or was not staged, or why it failed. */
  reason: string;
  failure: { kind: FailureKind; retryable: boolean } | null;
  /** Iterations committed after the starters, and candidates with a T_total. */
  iterations: number;
  evaluated: number;
  /** Simulated seconds at the cycle's start and end. */
  startedAt: number;
  endedAt: number;
  wallSeconds: number;
  /** With validateWindow, when the best beat the deployed policy on the snapshot: how both did on the previous window. */
  validation?: ValidationVerdict;
}

/** What validation on the previous window said about a cycle's best against the deployed policy (T_total there, seconds). */
export type ValidationVerdict =
  | { passed: true; best: number; deployed: number; gain: number }
  | { passed: false; best: number | null; deployed: number | null; why: string };

/** A cycle in progress, after its latest committed iteration. */
export interface CycleProgress {
  cycleId: number;
  iteration: number;
  bestCandidate: number | null;
  bestFitness: number | null;
}
