import { z } from 'zod';
import { prepared, type Db } from './connection.js';
import { decodeNullableJson, encodeJson } from './json.js';
import type { NewValidation, SnapshotScore, ValidationRecord } from './types.js';

export const SnapshotScoresSchema = z.array(
  z.strictObject({ label: z.string(), tTotal: z.number(), ratio: z.number(), throughput: z.number(), failures: z.number().int().min(0) }),
) as z.ZodType<SnapshotScore[]>;

interface ValidationRow {
  candidate: number;
  run: number;
  iteration: number;
  fitness: number | null;
  failure: string | null;
  snapshots: string | null;
  created_at: string;
}

/**
 * Record validation scores (after iteration `iteration`), in one transaction.
 * A candidate validated again (its scores are deterministic) keeps one row.
 */
export function saveValidations(db: Db, run: number, iteration: number, rows: readonly NewValidation[]): void {
  const upsert = prepared(
    db,
    `INSERT INTO validations (candidate, run, iteration, fitness, failure, snapshots) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (candidate) DO UPDATE SET fitness = excluded.fitness, failure = excluded.failure, snapshots = excluded.snapshots`,
  );
  db.transaction(() => {
    for (const r of rows) upsert.run(r.candidate, run, iteration, r.fitness, r.failure ?? null, encodeJson(SnapshotScoresSchema, r.snapshots, 'validations.snapshots'));
  }).immediate();
}

export function getValidation(db: Db, candidate: number): ValidationRecord | undefined {
  const row = prepared<ValidationRow>(db, 'SELECT * FROM validations WHERE candidate = ?').get(candidate);
  return row && toRecord(db, row);
}

/** Every validation of the run, best first (lowest fitness; failures last; ties: oldest candidate first). */
export function listValidations(db: Db, run: number): ValidationRecord[] {
  return prepared<ValidationRow>(db, 'SELECT * FROM validations WHERE run = ? ORDER BY fitness IS NULL, fitness, candidate')
    .all(run)
    .map((row) => toRecord(db, row));
}

function toRecord(db: Db, row: ValidationRow): ValidationRecord {
  return {
    candidate: row.candidate,
    run: row.run,
    iteration: row.iteration,
    fitness: row.fitness,
    failure: row.failure,
    snapshots: decodeNullableJson(SnapshotScoresSchema, row.snapshots, db.name, `validations.${row.candidate}.snapshots`) ?? [],
    createdAt: row.created_at,
  };
}
