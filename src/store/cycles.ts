import { InputError } from '../common/errors.js';
import { prepared, type Db } from './connection.js';
import { decodeNullableJson, encodeJson, JsonValueSchema } from './json.js';
import type { CycleRecord, CycleStatus, NewCycle } from './types.js';

/**
 * Evolution cycles of the continuous mode: one per snapshot the control plane
 * evolves on. Times are simulated seconds, the clock deployments use too, so
 * a cycle and the deployment it led to line up on one timeline.
 */

interface CycleRow {
  id: number;
  run: number;
  label: string | null;
  snapshot: string | null;
  started_at: number;
  ended_at: number | null;
  winner: number | null;
  status: CycleStatus;
  created_at: string;
}

const CYCLE_COLUMNS = 'id, run, label, snapshot, started_at, ended_at, winner, status, created_at';

export function insertCycle(db: Db, cycle: NewCycle): number {
  const result = prepared(db, 'INSERT INTO cycles (run, label, snapshot, started_at) VALUES (?, ?, ?, ?)').run(
    cycle.run,
    cycle.label ?? null,
    cycle.snapshot === undefined || cycle.snapshot === null ? null : encodeJson(JsonValueSchema, cycle.snapshot, 'cycles.snapshot'),
    cycle.startedAt,
  );
  return Number(result.lastInsertRowid);
}

export function finishCycle(
  db: Db,
  id: number,
  end: { endedAt: number; status: Exclude<CycleStatus, 'running'>; winner?: number | null },
): void {
  const result = prepared(db, 'UPDATE cycles SET ended_at = ?, status = ?, winner = ? WHERE id = ?').run(
    end.endedAt,
    end.status,
    end.winner ?? null,
    id,
  );
  if (result.changes === 0) throw new InputError(`no cycle ${id}`, { file: db.name });
}

export function getCycle(db: Db, id: number): CycleRecord | undefined {
  const row = prepared<CycleRow>(db, `SELECT ${CYCLE_COLUMNS} FROM cycles WHERE id = ?`).get(id);
  return row && toCycle(db, row);
}

export function listCycles(db: Db, runId: number): CycleRecord[] {
  return prepared<CycleRow>(db, `SELECT ${CYCLE_COLUMNS} FROM cycles WHERE run = ? ORDER BY id`)
    .all(runId)
    .map((row) => toCycle(db, row));
}

function toCycle(db: Db, row: CycleRow): CycleRecord {
  return {
    id: row.id,
    run: row.run,
    label: row.label,
    snapshot: decodeNullableJson(JsonValueSchema, row.snapshot, db.name, `cycles.${row.id}.snapshot`),
    startedAt: row.started_at,
    endedAt: row.ended_at,
    winner: row.winner,
    status: row.status,
    createdAt: row.created_at,
  };
}
