import * as candidates from './candidates.js';
import { openConnection, translateSqliteError, type ConnectionOptions, type Db } from './connection.js';
import * as cycles from './cycles.js';
import * as deployments from './deployments.js';
import * as islandMigrations from './island-migrations.js';
import * as iterations from './iterations.js';
import * as lineage from './lineage.js';
import * as runs from './runs.js';
import * as runState from './run-state.js';
import * as validations from './validations.js';
import type { JsonValue } from './json.js';
import { runCandidateStats, runStarters, type RunCandidateStats } from './run-stats.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import type {
  AncestryEntry,
  Candidate,
  CandidateRef,
  CandidateSummary,
  Checkpoint,
  CheckpointState,
  ChildLink,
  CycleEnd,
  CycleRecord,
  DeploymentRecord,
  MigrationRecord,
  NewCandidate,
  NewCycle,
  NewDeployment,
  NewMigration,
  NewRun,
  NewValidation,
  ValidationRecord,
  ParentLink,
  RunRecord,
  RunStatus,
  RunSummary,
} from './types.js';

export type OpenOptions = ConnectionOptions;

/**
 * Open (creating and migrating if needed) a lineage database.
 *
 * - read-write (default): creates the file and its directories, switches to
 *   WAL, applies pending schema steps;
 * - `{ readonly: true }` for lineage/show/export: never creates or writes; a
 *   missing file, a file with no lineage schema, or one that needs migrating
 *   is an InputError.
 *
 * Throws InputError (naming the file) for a file that is not SQLite, is
 * corrupt or unreadable, belongs to another application, or comes from a
 * newer schema version.
 */
export function openLineageStore(path: string, options: OpenOptions = {}): LineageStore {
  const db = openConnection(path, options);
  try {
    migrate(db, path, options.readonly ?? false);
  } catch (error) {
    db.close();
    throw translateSqliteError(error, path);
  }
  return new LineageStore(db, path, options.readonly ?? false);
}

/**
 * The lineage of evolution runs. A thin facade: each method is one function
 * of runs.ts, candidates.ts, lineage.ts, iterations.ts, cycles.ts or
 * deployments.ts, called with this connection, with SQLite failures turned
 * into InputError (bad file) or InfrastructureError (busy, I/O, disk full).
 */
export class LineageStore {
  /** @internal use openLineageStore */
  constructor(
    private readonly db: Db,
    readonly path: string,
    readonly readonly: boolean,
  ) {}

  readonly schemaVersion = SCHEMA_VERSION;

  // Runs
  createRun(run: NewRun): number {
    return this.guard(() => runs.createRun(this.db, run));
  }
  finishRun(id: number, status: Exclude<RunStatus, 'running'> = 'finished'): void {
    this.guard(() => runs.finishRun(this.db, id, status));
  }
  /** Mark a run running again before resuming it; InputError if there is no such run. */
  reopenRun(id: number): void {
    this.guard(() => runs.reopenRun(this.db, id));
  }
  getRun(id: number): RunRecord | undefined {
    return this.guard(() => runs.getRun(this.db, id));
  }
  listRuns(): RunSummary[] {
    return this.guard(() => runs.listRuns(this.db));
  }
  latestRun(status?: RunStatus): RunRecord | undefined {
    return this.guard(() => runs.latestRun(this.db, status));
  }

  // Writing candidates
  /** One candidate with its parent links, atomically; prefer commitIteration inside an evolution loop. */
  insertCandidate(c: NewCandidate<number> & { run: number; iteration: number }): number {
    return this.guard(() => iterations.insertCandidate(this.db, c));
  }
  /** A whole iteration and the checkpoint after it, in one transaction (see iterations.ts). */
  commitIteration(
    runId: number,
    iteration: number,
    batch: readonly NewCandidate<CandidateRef>[],
    state: CheckpointState | ((ids: readonly number[]) => CheckpointState),
    migrations: readonly NewMigration[] = [],
  ): number[] {
    return this.guard(() => iterations.commitIteration(this.db, runId, iteration, batch, state, migrations));
  }
  runCandidateStats(runId: number): RunCandidateStats {
    return this.guard(() => runCandidateStats(this.db, runId));
  }

  /** Ids of the run's iteration-0 candidates that ran cleanly (its seeds and warm starts). */
  starters(runId: number): number[] {
    return this.guard(() => runStarters(this.db, runId));
  }

  loadCheckpoint(runId: number): Checkpoint | undefined {
    return this.guard(() => iterations.loadCheckpoint(this.db, runId));
  }

  // Reading candidates and their lineage
  getCandidate(id: number): Candidate | undefined {
    return this.guard(() => candidates.getCandidate(this.db, id));
  }
  parents(id: number): ParentLink[] {
    return this.guard(() => candidates.parentsOf(this.db, id));
  }
  /** Lowest fitness (T_total) first; failed and rejected candidates excluded. */
  best(runId: number | undefined, n: number): CandidateSummary[] {
    return this.guard(() => candidates.best(this.db, runId, n));
  }
  findByCodeHash(runId: number, hash: string): CandidateSummary | undefined {
    return this.guard(() => candidates.findByCodeHash(this.db, runId, hash));
  }
  countCandidates(runId?: number): number {
    return this.guard(() => candidates.countCandidates(this.db, runId));
  }
  ancestry(id: number): AncestryEntry[] {
    return this.guard(() => lineage.ancestry(this.db, id));
  }
  children(id: number): ChildLink[] {
    return this.guard(() => lineage.children(this.db, id));
  }
  listMigrations(runId: number): MigrationRecord[] {
    return this.guard(() => islandMigrations.listMigrations(this.db, runId));
  }

  // Validation (offline runs with validation snapshots)
  /** Validation scores of candidates after `iteration`, in one transaction. */
  saveValidations(runId: number, iteration: number, rows: readonly NewValidation[]): void {
    this.guard(() => validations.saveValidations(this.db, runId, iteration, rows));
  }
  getValidation(candidate: number): ValidationRecord | undefined {
    return this.guard(() => validations.getValidation(this.db, candidate));
  }
  /** The run's validations, best first. */
  listValidations(runId: number): ValidationRecord[] {
    return this.guard(() => validations.listValidations(this.db, runId));
  }

  // Continuous mode
  insertCycle(cycle: NewCycle): number {
    return this.guard(() => cycles.insertCycle(this.db, cycle));
  }
  finishCycle(id: number, end: CycleEnd): void {
    this.guard(() => cycles.finishCycle(this.db, id, end));
  }
  /** Mark the run's cycles still 'running' (their process died) as 'interrupted'; returns their ids. */
  interruptRunningCycles(runId: number, endedAt: number, reason: string): number[] {
    return this.guard(() => cycles.interruptRunningCycles(this.db, runId, endedAt, reason));
  }
  getCycle(id: number): CycleRecord | undefined {
    return this.guard(() => cycles.getCycle(this.db, id));
  }
  listCycles(runId: number): CycleRecord[] {
    return this.guard(() => cycles.listCycles(this.db, runId));
  }
  insertDeployment(d: NewDeployment): number {
    return this.guard(() => deployments.insertDeployment(this.db, d));
  }
  markRolledBack(id: number, at: number, reason?: string): boolean {
    return this.guard(() => deployments.markRolledBack(this.db, id, at, reason));
  }
  listDeployments(runId?: number): DeploymentRecord[] {
    return this.guard(() => deployments.listDeployments(this.db, runId));
  }
  /** The run's latest deployment that was not rolled back: what is serving now. */
  currentDeployment(runId: number): DeploymentRecord | undefined {
    return this.guard(() => deployments.currentDeployment(this.db, runId));
  }

  // Run state outside iterations (continuous mode: warm start, simulated time reached)
  /** Upsert keys of the run's state (the reserved key 'iteration' is refused). */
  saveRunState(runId: number, entries: CheckpointState): void {
    this.guard(() => runState.saveRunState(this.db, runId, entries));
  }
  /** Every saved key of the run's state except 'iteration' (see loadCheckpoint). */
  loadRunState(runId: number): Record<string, JsonValue> {
    return this.guard(() => runState.loadRunState(this.db, runId));
  }

  /**
   * Run fn in one write transaction (BEGIN IMMEDIATE): the writes it makes
   * through this store commit together or not at all, so a process killed in
   * the middle leaves none of them. A call inside another joins it.
   */
  transaction<T>(fn: () => T): T {
    return this.guard(() => (this.db.inTransaction ? this.db.transaction(fn)() : this.db.transaction(fn).immediate()));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw translateSqliteError(error, this.path);
    }
  }
}
