import { z } from 'zod';
import { InfrastructureError } from '../common/errors.js';
import { insertCandidateRow } from './candidates.js';
import { NOW_SQL, prepared, type Db } from './connection.js';
import { insertMigration } from './island-migrations.js';
import { decodeJson, encodeJson, JsonValueSchema, type JsonValue } from './json.js';
import { requireRun } from './runs.js';
import type { CandidateRef, Checkpoint, CheckpointState, NewCandidate, NewMigration } from './types.js';

/**
 * Iterations are the unit of durability. commitIteration writes everything an
 * iteration produced (its candidates, their parent links, its island
 * migrations) and the checkpoint of the evolution state after it, in ONE
 * transaction. A process killed at any point (SIGKILL included) leaves either
 * the whole iteration and its checkpoint, or neither, because SQLite discards
 * a transaction without a commit record when it next opens the file.
 *
 * Resume is then: loadCheckpoint, continue at iteration + 1 from the saved
 * state. Candidates of the iteration that was in flight were never committed,
 * so they are not in the file, their ids were never handed out, and the
 * state does not refer to them: no duplicates, nothing committed lost.
 */

/** run_state key holding the last committed iteration; the caller's state uses any other key. */
export const ITERATION_KEY = 'iteration';

const IterationSchema = z.number().int().nonnegative();

/**
 * Commit one iteration. `state` is what a resumed run needs (PRNG state,
 * archive cells -> candidate ids, ...): pass a function to build it from the
 * ids just assigned, which only exist inside this transaction. Keys present
 * replace their saved values; keys absent keep theirs.
 *
 * Iterations are numbered by the caller and must follow the checkpoint by
 * exactly one (the first may be any number >= 0). Anything else means another
 * process is writing this run, or a resume did not start from the checkpoint:
 * refused with InfrastructureError, nothing written.
 *
 * Returns the new candidates' ids, in the order given.
 */
export function commitIteration(
  db: Db,
  runId: number,
  iteration: number,
  candidates: readonly NewCandidate<CandidateRef>[],
  state: CheckpointState | ((ids: readonly number[]) => CheckpointState),
  migrations: readonly NewMigration[] = [],
): number[] {
  if (!IterationSchema.safeParse(iteration).success) throw new TypeError(`lineage store: iteration ${iteration} is not an integer >= 0`);
  // IMMEDIATE: take the write lock before reading the checkpoint, so the
  // check below and the writes that depend on it see the same database, and a
  // concurrent writer makes us wait (busy timeout) instead of failing late.
  return db
    .transaction((): number[] => {
      requireRun(db, runId);
      const last = readIteration(db, runId);
      if (last !== undefined && iteration !== last + 1) {
        throw new InfrastructureError(
          `${db.name}: run ${runId} has committed iteration ${last}, cannot commit iteration ${iteration} ` +
            '(is another process writing this run, or did a resume not start from its checkpoint?)',
        );
      }
      const ids: number[] = [];
      const resolve = (ref: CandidateRef, before: number, what: string): number => {
        if (typeof ref === 'number') return ref;
        if (!Number.isInteger(ref.batch) || ref.batch < 0 || ref.batch >= before) {
          throw new TypeError(`lineage store: ${what} refers to batch candidate ${ref.batch}, which is not earlier in the batch`);
        }
        return ids[ref.batch]!;
      };
      candidates.forEach((c, index) => {
        ids.push(
          insertCandidateRow(db, runId, iteration, {
            ...c,
            parents: c.parents?.map((ref) => resolve(ref, index, `candidate ${index}'s parent`)),
            inspirations: c.inspirations?.map((ref) => resolve(ref, index, `candidate ${index}'s inspiration`)),
          }),
        );
      });
      for (const m of migrations) {
        insertMigration(db, runId, iteration, { ...m, candidate: resolve(m.candidate, ids.length, 'a migration') });
      }
      const saved = typeof state === 'function' ? state(ids) : state;
      if (Object.hasOwn(saved, ITERATION_KEY)) throw new TypeError(`lineage store: checkpoint key '${ITERATION_KEY}' is reserved`);
      const upsert = prepared(
        db,
        `INSERT INTO run_state (run, key, value) VALUES (?, ?, ?)
         ON CONFLICT (run, key) DO UPDATE SET value = excluded.value, updated_at = ${NOW_SQL}`,
      );
      for (const [key, value] of Object.entries(saved)) {
        upsert.run(runId, key, encodeJson(JsonValueSchema, value, `run_state.${key}`));
      }
      upsert.run(runId, ITERATION_KEY, String(iteration));
      return ids;
    })
    .immediate();
}

/** The state saved by the last commitIteration of the run, or undefined if it never committed one. */
export function loadCheckpoint(db: Db, runId: number): Checkpoint | undefined {
  const rows = prepared<{ key: string; value: string }>(db, 'SELECT key, value FROM run_state WHERE run = ? ORDER BY key').all(runId);
  const iterationRow = rows.find((row) => row.key === ITERATION_KEY);
  if (!iterationRow) return undefined;
  const state: Record<string, JsonValue> = {};
  for (const row of rows) {
    if (row.key !== ITERATION_KEY) state[row.key] = decodeJson(JsonValueSchema, row.value, db.name, `run_state.${runId}.${row.key}`);
  }
  return {
    iteration: decodeJson(IterationSchema, iterationRow.value, db.name, `run_state.${runId}.${ITERATION_KEY}`),
    state,
  };
}

function readIteration(db: Db, runId: number): number | undefined {
  const row = prepared<{ value: string }>(db, 'SELECT value FROM run_state WHERE run = ? AND key = ?').get(runId, ITERATION_KEY);
  return row === undefined ? undefined : decodeJson(IterationSchema, row.value, db.name, `run_state.${runId}.${ITERATION_KEY}`);
}

/** One candidate outside an iteration (seeds, the continuous mode): it and its parent links, atomically. */
export function insertCandidate(db: Db, c: NewCandidate<number> & { run: number; iteration: number }): number {
  return db.transaction(() => insertCandidateRow(db, c.run, c.iteration, c)).immediate();
}
