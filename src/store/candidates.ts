import { codeHash } from '../common/code-hash.js';
import { prepared, type Db } from './connection.js';
import { decodeNullableJson, encodeJson, JsonObjectSchema, NumberRecordSchema } from './json.js';
import { getValidation, SnapshotScoresSchema } from './validations.js';
import type { Candidate, CandidateStatus, CandidateSummary, NewCandidate, ParentLink, ParentRole } from './types.js';

/** Row of `candidates` without code and metrics, the large columns that listings do not need. */
export interface CandidateSummaryRow {
  id: number;
  run: number;
  cycle: number | null;
  island: number;
  iteration: number;
  mutator: string;
  model: string | null;
  edit_summary: string | null;
  code_hash: string;
  status: CandidateStatus;
  failure_kind: string | null;
  failure_message: string | null;
  fitness: number | null;
  breakdown: string | null;
  features: string | null;
  cell: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  created_at: string;
}

/** The summary columns, qualified with a table alias for joins. */
export function summaryColumns(alias = 'candidates'): string {
  return [
    'id', 'run', 'cycle', 'island', 'iteration', 'mutator', 'model', 'edit_summary', 'code_hash', 'status',
    'failure_kind', 'failure_message', 'fitness', 'breakdown', 'features', 'cell', 'prompt_tokens',
    'completion_tokens', 'created_at',
  ]
    .map((column) => `${alias}.${column}`)
    .join(', ');
}

/**
 * Insert one candidate and its parent links. Not a transaction by itself:
 * callers wrap it (insertCandidateTx, commitIteration) so that a candidate
 * never exists without its parents.
 */
export function insertCandidateRow(db: Db, run: number, iteration: number, c: NewCandidate<number>): number {
  const result = prepared(
    db,
    `INSERT INTO candidates (run, cycle, island, iteration, mutator, model, edit_summary, code, code_hash, status,
       failure_kind, failure_message, fitness, breakdown, metrics, features, cell, prompt_tokens, completion_tokens, snapshots)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    run,
    c.cycle ?? null,
    c.island,
    iteration,
    c.mutator,
    c.model ?? null,
    c.editSummary ?? null,
    c.code,
    c.codeHash ?? codeHash(c.code),
    c.status,
    c.failureKind ?? null,
    c.failureMessage ?? null,
    c.fitness ?? null,
    c.breakdown == null ? null : encodeJson(NumberRecordSchema, c.breakdown, 'candidates.breakdown'),
    c.metrics == null ? null : encodeJson(JsonObjectSchema, c.metrics, 'candidates.metrics'),
    c.features == null ? null : encodeJson(NumberRecordSchema, c.features, 'candidates.features'),
    c.cell ?? null,
    c.promptTokens ?? null,
    c.completionTokens ?? null,
    c.snapshots == null ? null : encodeJson(SnapshotScoresSchema, c.snapshots, 'candidates.snapshots'),
  );
  const id = Number(result.lastInsertRowid);
  // Deduplicated here rather than with INSERT OR IGNORE, which would also
  // silently drop rows that break the CHECK (parent < child).
  const link = prepared(db, 'INSERT INTO candidate_parents (child, parent, role) VALUES (?, ?, ?)');
  for (const parent of new Set(c.parents ?? [])) link.run(id, parent, 'parent');
  for (const parent of new Set(c.inspirations ?? [])) link.run(id, parent, 'inspiration');
  return id;
}

export function getCandidate(db: Db, id: number): Candidate | undefined {
  const row = prepared<CandidateSummaryRow & { code: string; metrics: string | null; snapshots: string | null }>(
    db,
    `SELECT ${summaryColumns()}, code, metrics, snapshots FROM candidates WHERE id = ?`,
  ).get(id);
  if (!row) return undefined;
  return {
    ...toSummary(db, row),
    code: row.code,
    metrics: decodeNullableJson(JsonObjectSchema, row.metrics, db.name, `candidates.${row.id}.metrics`),
    parents: parentsOf(db, id),
    snapshots: decodeNullableJson(SnapshotScoresSchema, row.snapshots, db.name, `candidates.${row.id}.snapshots`),
    validation: getValidation(db, id) ?? null,
  };
}

/** A candidate's direct links (parents first, then inspirations), by id. */
export function parentsOf(db: Db, id: number): ParentLink[] {
  return prepared<{ parent: number; role: ParentRole }>(
    db,
    "SELECT parent, role FROM candidate_parents WHERE child = ? ORDER BY role = 'inspiration', parent",
  )
    .all(id)
    .map((row) => ({ id: row.parent, role: row.role }));
}

/** The n best evaluated candidates (lowest T_total first; ties: oldest first), of one run or of all. */
export function best(db: Db, runId: number | undefined, n: number): CandidateSummary[] {
  const rows =
    runId === undefined
      ? prepared<CandidateSummaryRow>(
          db,
          `SELECT ${summaryColumns()} FROM candidates WHERE status = 'evaluated' ORDER BY fitness, id LIMIT ?`,
        ).all(n)
      : prepared<CandidateSummaryRow>(
          db,
          `SELECT ${summaryColumns()} FROM candidates WHERE run = ? AND status = 'evaluated' ORDER BY fitness, id LIMIT ?`,
        ).all(runId, n);
  return rows.map((row) => toSummary(db, row));
}

/** The first candidate of the run with this code hash (any status): a mutation that reproduced known code. */
export function findByCodeHash(db: Db, runId: number, hash: string): CandidateSummary | undefined {
  const row = prepared<CandidateSummaryRow>(
    db,
    `SELECT ${summaryColumns()} FROM candidates WHERE code_hash = ? AND run = ? ORDER BY id LIMIT 1`,
  ).get(hash, runId);
  return row && toSummary(db, row);
}

export function countCandidates(db: Db, runId?: number): number {
  const row =
    runId === undefined
      ? prepared<{ n: number }>(db, 'SELECT count(*) AS n FROM candidates').get()
      : prepared<{ n: number }>(db, 'SELECT count(*) AS n FROM candidates WHERE run = ?').get(runId);
  return row!.n;
}

export function toSummary(db: Db, row: CandidateSummaryRow): CandidateSummary {
  const field = (column: string) => `candidates.${row.id}.${column}`;
  return {
    id: row.id,
    run: row.run,
    cycle: row.cycle,
    island: row.island,
    iteration: row.iteration,
    mutator: row.mutator,
    model: row.model,
    editSummary: row.edit_summary,
    codeHash: row.code_hash,
    status: row.status,
    failureKind: row.failure_kind,
    failureMessage: row.failure_message,
    fitness: row.fitness,
    breakdown: decodeNullableJson(NumberRecordSchema, row.breakdown, db.name, field('breakdown')),
    features: decodeNullableJson(NumberRecordSchema, row.features, db.name, field('features')),
    cell: row.cell,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    createdAt: row.created_at,
  };
}
