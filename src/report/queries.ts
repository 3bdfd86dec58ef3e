import Database from 'better-sqlite3';

/**
 * Read-only queries the report needs and the lineage store does not offer
 * (every candidate of a run in one pass, failures by kind). The file has
 * been opened and checked by openLineageStore first; this second connection
 * is read-only and only runs SELECTs.
 */
export interface CandidatePoint {
  id: number;
  island: number;
  iteration: number;
  mutator: string;
  status: string;
  failureKind: string | null;
  fitness: number | null;
}

export interface FailureTally {
  kind: string;
  status: string;
  count: number;
}

export class ReportQueries {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path, { readonly: true, fileMustExist: true });
  }

  candidates(run: number): CandidatePoint[] {
    return this.db
      .prepare('SELECT id, island, iteration, mutator, status, failure_kind AS failureKind, fitness FROM candidates WHERE run = ? ORDER BY iteration, id')
      .all(run) as CandidatePoint[];
  }

  /** Failed and rejected candidates, and evaluated ones that carry a non-fatal failure kind. */
  failures(run: number): FailureTally[] {
    return this.db
      .prepare(
        "SELECT coalesce(failure_kind, 'unknown') AS kind, status, count(*) AS count FROM candidates WHERE run = ? AND (status <> 'evaluated' OR failure_kind IS NOT NULL) GROUP BY kind, status ORDER BY count DESC, kind",
      )
      .all(run) as FailureTally[];
  }

  close(): void {
    this.db.close();
  }
}
