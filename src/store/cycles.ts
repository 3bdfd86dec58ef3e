import { InputError } from '../common/errors.js';
import { prepared, type Db } from './connection.js';
import { decodeNullableJson, encodeJson, JsonValueSchema } from './json.js';
import type { CycleEnd, CycleRecord, CycleStatus, NewCycle } from './types.js';

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
  reason: string | null;
  best_candidate: number | null;
  best_fitness: number | null;
  deployed_candidate: number | null;
  deployed_fitness: number | null;
}

const CYCLE_COLUMNS =
  'id, run, label, snapshot, started_at, ended_at, winner, status, created_at, reason, best_candidate, best_fitness, deployed_candidate, deployed_fitness';

export function insertCycle(db: Db, cycle: NewCycle): number {
  const result = prepared(db, 'INSERT INTO cycles (run, label, snapshot, started_at) VALUES (?, ?, ?, ?)').run(
    cycle.run,
    cycle.label ?? null,
    cycle.snapshot === undefined || cycle.snapshot === null ? null : encodeJson(JsonValueSchema, cycle.snapshot, 'cycles.snapshot'),
    cycle.startedAt,
  );
  return Number(result.lastInsertRowid);
}

export function finishCycle(db: Db, id: number, end: CycleEnd): void {
  const result = prepared(
    db,
    `UPDATE cycles SET ended_at = ?, status = ?, winner = ?, reason = ?, best_candidate = ?, best_fitness = ?,
       deployed_candidate = ?, deployed_fitness = ? WHERE id = ?`,
  ).run(
    end.endedAt,
    end.status,
    end.winner ?? null,
    end.reason ?? null,
    end.best?.candidate ?? null,
    end.best?.fitness ?? null,
    end.deployed?.candidate ?? null,
    end.deployed?.fitness ?? null,
    id,
  );
  if (result.changes === 0) throw new InputError(`no cycle ${id}`, { file: db.name });
}

/**
 * End every cycle of the run still marked running (its process died during
 * it) as 'interrupted', in one transaction. Returns their ids.
 */
export function interruptRunningCycles(db: Db, runId: number, endedAt: number, reason: string): number[] {
  return db
    .transaction(() => {
      const ids = prepared<{ id: number }>(db, "SELECT id FROM cycles WHERE run = ? AND status = 'running' ORDER BY id")
        .all(runId)
        .map((row) => row.id);
      const end = prepared(db, "UPDATE cycles SET status = 'interrupted', ended_at = max(started_at, ?), reason = ? WHERE id = ?");
      for (const id of ids) end.run(endedAt, reason, id);
      return ids;
    })
    .immediate();
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
    reason: row.reason,
    bestCandidate: row.best_candidate,
    bestFitness: row.best_fitness,
    deployedCandidate: row.deployed_candidate,
    deployedFitness: row.deployed_fitness,
    createdAt: row.created_at,
  };
}
