import { prepared, type Db } from './connection.js';
import type { MigrationRecord } from './types.js';

/** Rows of the `migrations` table: an elite copied from one island's archive to another's. */

export function insertMigration(db: Db, run: number, iteration: number, m: { fromIsland: number; toIsland: number; candidate: number }): number {
  const result = prepared(
    db,
    'INSERT INTO migrations (run, iteration, from_island, to_island, candidate) VALUES (?, ?, ?, ?, ?)',
  ).run(run, iteration, m.fromIsland, m.toIsland, m.candidate);
  return Number(result.lastInsertRowid);
}

export function listMigrations(db: Db, runId: number): MigrationRecord[] {
  return prepared<{
    id: number;
    run: number;
    iteration: number;
    from_island: number;
    to_island: number;
    candidate: number;
    created_at: string;
  }>(db, 'SELECT id, run, iteration, from_island, to_island, candidate, created_at FROM migrations WHERE run = ? ORDER BY id')
    .all(runId)
    .map((row) => ({
      id: row.id,
      run: row.run,
      iteration: row.iteration,
      fromIsland: row.from_island,
      toIsland: row.to_island,
      candidate: row.candidate,
      createdAt: row.created_at,
    }));
}
