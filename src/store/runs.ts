import { InputError } from '../common/errors.js';
import { NOW_SQL, prepared, type Db } from './connection.js';
import { decodeJson, encodeJson, JsonObjectSchema } from './json.js';
import type { NewRun, RunRecord, RunStatus, RunSummary } from './types.js';

interface RunRow {
  id: number;
  name: string | null;
  config: string;
  seed: number;
  started_at: string;
  ended_at: string | null;
  status: RunStatus;
}

const RUN_COLUMNS = 'id, name, config, seed, started_at, ended_at, status';

export function createRun(db: Db, run: NewRun): number {
  const result = prepared(db, 'INSERT INTO runs (name, config, seed) VALUES (?, ?, ?)').run(
    run.name ?? null,
    encodeJson(JsonObjectSchema, run.config, 'runs.config'),
    run.seed,
  );
  return Number(result.lastInsertRowid);
}

export function getRun(db: Db, id: number): RunRecord | undefined {
  const row = prepared<RunRow>(db, `SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(id);
  return row && toRun(db, row);
}

/** The run, or an InputError naming the database: for ids that came from the user (--run, --resume). */
export function requireRun(db: Db, id: number): RunRecord {
  const run = getRun(db, id);
  if (!run) throw new InputError(`no run ${id}`, { file: db.name });
  return run;
}

/** The newest run, optionally only among runs with the given status (e.g. 'running' for --resume). */
export function latestRun(db: Db, status?: RunStatus): RunRecord | undefined {
  const row =
    status === undefined
      ? prepared<RunRow>(db, `SELECT ${RUN_COLUMNS} FROM runs ORDER BY id DESC LIMIT 1`).get()
      : prepared<RunRow>(db, `SELECT ${RUN_COLUMNS} FROM runs WHERE status = ? ORDER BY id DESC LIMIT 1`).get(status);
  return row && toRun(db, row);
}

/** Every run, oldest first, with its candidate count, best fitness and last checkpointed iteration. */
export function listRuns(db: Db): RunSummary[] {
  const rows = prepared<RunRow & { candidates: number; best_fitness: number | null; last_iteration: string | null }>(
    db,
    `SELECT ${RUN_COLUMNS},
       (SELECT count(*) FROM candidates c WHERE c.run = runs.id) AS candidates,
       (SELECT min(fitness) FROM candidates c WHERE c.run = runs.id AND c.status = 'evaluated') AS best_fitness,
       (SELECT value FROM run_state s WHERE s.run = runs.id AND s.key = 'iteration') AS last_iteration
     FROM runs ORDER BY id`,
  ).all();
  return rows.map((row) => ({
    ...toRun(db, row),
    candidates: row.candidates,
    bestFitness: row.best_fitness,
    lastIteration: row.last_iteration === null ? null : Number(row.last_iteration),
  }));
}

/** End a run: 'finished' when it ran its course, 'interrupted' when stopped (SIGINT, cycle timeout). */
export function finishRun(db: Db, id: number, status: Exclude<RunStatus, 'running'> = 'finished'): void {
  const result = prepared(db, `UPDATE runs SET status = ?, ended_at = ${NOW_SQL} WHERE id = ?`).run(status, id);
  if (result.changes === 0) throw new InputError(`no run ${id}`, { file: db.name });
}

/** Mark a run running again (for --resume): a killed run still says 'running', an interrupted one does not. */
export function reopenRun(db: Db, id: number): void {
  const result = prepared(db, "UPDATE runs SET status = 'running', ended_at = NULL WHERE id = ?").run(id);
  if (result.changes === 0) throw new InputError(`no run ${id}`, { file: db.name });
}

function toRun(db: Db, row: RunRow): RunRecord {
  return {
    id: row.id,
    name: row.name,
    config: decodeJson(JsonObjectSchema, row.config, db.name, `runs.${row.id}.config`),
    seed: row.seed,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    status: row.status,
  };
}
