import { prepared, type Db } from './connection.js';

/** Aggregates of one run's candidates, for the end-of-run summary. */
export interface RunCandidateStats {
  /** Candidates with a fitness (evaluated ones, and failed ones whose replay finished). */
  evaluated: number;
  /** Failed and rejected candidates by failure kind. */
  failedByKind: Record<string, number>;
  /** The best seed (iteration 0, evaluated), the baseline evolution is measured against. */
  seedsBest: { id: number; fitness: number } | null;
}

/** A run's starters that ran cleanly (seeds, warm starts): its iteration-0 candidates with status evaluated. */
const STARTERS = "run = ? AND iteration = 0 AND status = 'evaluated'";

export function runCandidateStats(db: Db, runId: number): RunCandidateStats {
  const evaluated = prepared(db, 'SELECT count(*) AS n FROM candidates WHERE run = ? AND fitness IS NOT NULL').get(runId) as { n: number };
  const kinds = prepared(db, "SELECT failure_kind AS kind, count(*) AS n FROM candidates WHERE run = ? AND status != 'evaluated' GROUP BY failure_kind ORDER BY failure_kind").all(runId) as { kind: string | null; n: number }[];
  const seed = prepared(db, `SELECT id, fitness FROM candidates WHERE ${STARTERS} ORDER BY fitness, id LIMIT 1`).get(runId) as { id: number; fitness: number } | undefined;
  const failedByKind: Record<string, number> = {};
  for (const k of kinds) failedByKind[k.kind ?? 'unknown'] = k.n;
  return { evaluated: evaluated.n, failedByKind, seedsBest: seed ?? null };
}

/** The run's starters that ran cleanly: its iteration-0 candidates (seeds, warm starts) with status evaluated, by id. */
export function runStarters(db: Db, runId: number): number[] {
  const rows = prepared(db, `SELECT id FROM candidates WHERE ${STARTERS} ORDER BY id`).all(runId) as { id: number }[];
  return rows.map((r) => r.id);
}
