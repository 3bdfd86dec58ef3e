import { InputError } from '../common/errors.js';
import { NOW_SQL, type Db } from './connection.js';

/**
 * Schema versions, applied forward only. The database's `PRAGMA user_version`
 * is the last version applied; each step runs in its own transaction together
 * with the bump of user_version, so a crash mid-migration leaves the previous
 * version intact. Never edit a released step: add a new one.
 *
 * (Not to be confused with the `migrations` table, which records candidates
 * migrating between islands.)
 */
interface SchemaStep {
  version: number;
  description: string;
  sql: string;
}

/** 'APTS' as a big-endian int32: marks a SQLite file as an autopoiesis lineage (PRAGMA application_id). */
export const APPLICATION_ID = 0x41505453;

const STEPS: readonly SchemaStep[] = [
  {
    version: 1,
    description: 'runs, cycles, candidates and their parents, island migrations, deployments, run checkpoints',
    sql: `
CREATE TABLE runs (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  name        TEXT,
  config      TEXT NOT NULL CHECK (json_valid(config)),
  seed        INTEGER NOT NULL,
  started_at  TEXT NOT NULL DEFAULT (${NOW_SQL}),
  ended_at    TEXT,
  status      TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished', 'interrupted'))
);

CREATE TABLE cycles (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  label       TEXT,
  snapshot    TEXT CHECK (snapshot IS NULL OR json_valid(snapshot)),
  started_at  REAL NOT NULL,
  ended_at    REAL,
  winner      INTEGER REFERENCES candidates(id) ON DELETE SET NULL,
  status      TEXT NOT NULL DEFAULT 'running'
              CHECK (status IN ('running', 'finished', 'timed_out', 'failed', 'interrupted')),
  created_at  TEXT NOT NULL DEFAULT (${NOW_SQL})
);

-- AUTOINCREMENT: an id is never reused, even after its run is deleted, so an
-- id printed in a log or an exported file keeps naming one candidate.
CREATE TABLE candidates (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  run               INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  cycle             INTEGER REFERENCES cycles(id) ON DELETE SET NULL,
  island            INTEGER NOT NULL CHECK (island >= 0),
  iteration         INTEGER NOT NULL CHECK (iteration >= 0),
  mutator           TEXT NOT NULL,
  model             TEXT,
  edit_summary      TEXT,
  code              TEXT NOT NULL,
  code_hash         TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('evaluated', 'failed', 'rejected')),
  failure_kind      TEXT,
  failure_message   TEXT,
  fitness           REAL,
  breakdown         TEXT CHECK (breakdown IS NULL OR json_valid(breakdown)),
  metrics           TEXT CHECK (metrics IS NULL OR json_valid(metrics)),
  features          TEXT CHECK (features IS NULL OR json_valid(features)),
  cell              TEXT,
  prompt_tokens     INTEGER CHECK (prompt_tokens IS NULL OR prompt_tokens >= 0),
  completion_tokens INTEGER CHECK (completion_tokens IS NULL OR completion_tokens >= 0),
  created_at        TEXT NOT NULL DEFAULT (${NOW_SQL}),
  CHECK (status <> 'evaluated' OR fitness IS NOT NULL),
  CHECK (status = 'evaluated' OR failure_kind IS NOT NULL)
);
CREATE INDEX candidates_run_fitness ON candidates(run, fitness);
CREATE INDEX candidates_run_iteration ON candidates(run, iteration);
CREATE INDEX candidates_code_hash ON candidates(code_hash);

-- parent < child: a candidate's parents exist before it, which also makes
-- the graph acyclic, so a recursive walk over it always ends.
CREATE TABLE candidate_parents (
  child   INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  parent  INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  role    TEXT NOT NULL CHECK (role IN ('parent', 'inspiration')),
  PRIMARY KEY (child, parent, role),
  CHECK (parent < child)
) WITHOUT ROWID;
CREATE INDEX candidate_parents_parent ON candidate_parents(parent);

CREATE TABLE migrations (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  run          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration    INTEGER NOT NULL,
  from_island  INTEGER NOT NULL,
  to_island    INTEGER NOT NULL,
  candidate    INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  created_at   TEXT NOT NULL DEFAULT (${NOW_SQL})
);
CREATE INDEX migrations_run ON migrations(run, iteration);

CREATE TABLE deployments (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  run                 INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  cycle               INTEGER REFERENCES cycles(id) ON DELETE SET NULL,
  candidate           INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  deployed_at         REAL NOT NULL,
  fitness_on_snapshot REAL,
  replaced_candidate  INTEGER REFERENCES candidates(id) ON DELETE SET NULL,
  rolled_back_at      REAL,
  reason              TEXT,
  rollback_reason     TEXT,
  created_at          TEXT NOT NULL DEFAULT (${NOW_SQL})
);
CREATE INDEX deployments_run ON deployments(run, deployed_at);

CREATE TABLE run_state (
  run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key         TEXT NOT NULL,
  value       TEXT NOT NULL CHECK (json_valid(value)),
  updated_at  TEXT NOT NULL DEFAULT (${NOW_SQL}),
  PRIMARY KEY (run, key)
) WITHOUT ROWID;
`,
  },
  {
    version: 2,
    description: 'cycles: why a cycle ended as it did, its best candidate and the deployed policy, each with its T_total on the snapshot',
    sql: `
ALTER TABLE cycles ADD COLUMN reason TEXT;
ALTER TABLE cycles ADD COLUMN best_candidate INTEGER REFERENCES candidates(id) ON DELETE SET NULL;
ALTER TABLE cycles ADD COLUMN best_fitness REAL;
ALTER TABLE cycles ADD COLUMN deployed_candidate INTEGER REFERENCES candidates(id) ON DELETE SET NULL;
ALTER TABLE cycles ADD COLUMN deployed_fitness REAL;
`,
  },
  {
    version: 3,
    description: 'candidates: the per-snapshot scores of a multi-snapshot run; validations: each validated candidate\'s fitness on the validation snapshots',
    sql: `
ALTER TABLE candidates ADD COLUMN snapshots TEXT CHECK (snapshots IS NULL OR json_valid(snapshots));

CREATE TABLE validations (
  candidate   INTEGER PRIMARY KEY REFERENCES candidates(id) ON DELETE CASCADE,
  run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration   INTEGER NOT NULL CHECK (iteration >= 0),
  fitness     REAL,
  failure     TEXT,
  snapshots   TEXT CHECK (snapshots IS NULL OR json_valid(snapshots)),
  created_at  TEXT NOT NULL DEFAULT (${NOW_SQL}),
  CHECK (fitness IS NOT NULL OR failure IS NOT NULL)
);
CREATE INDEX validations_run_fitness ON validations(run, fitness);
`,
  },
];

/** The schema version this build writes and understands. */
export const SCHEMA_VERSION = STEPS[STEPS.length - 1]!.version;

/**
 * Bring the database to SCHEMA_VERSION, or check that it is there when
 * read-only. Refuses (InputError) a database from a newer build, a SQLite
 * file that belongs to another application, and, read-only, one that has no
 * lineage schema yet or needs a migration.
 */
export function migrate(db: Db, file: string, readonly: boolean): { from: number; to: number } {
  const from = userVersion(db);
  checkOwnership(db, file, from);
  if (from > SCHEMA_VERSION) {
    throw new InputError(
      `lineage schema version ${from} is newer than this build understands (${SCHEMA_VERSION}); use a newer autopoiesis`,
      { file },
    );
  }
  if (from === SCHEMA_VERSION) return { from, to: from };
  if (readonly) {
    throw new InputError(
      from === 0
        ? 'not a lineage database (no schema)'
        : `lineage schema version ${from} needs migrating to ${SCHEMA_VERSION}; open it once read-write (e.g. evolve --resume)`,
      { file },
    );
  }
  for (const step of STEPS) {
    if (step.version <= from) continue;
    // IMMEDIATE takes the write lock before re-reading the version, so two
    // processes opening a fresh file at once cannot both apply a step.
    db.transaction(() => {
      if (userVersion(db) >= step.version) return;
      db.exec(step.sql);
      if (step.version === 1) db.pragma(`application_id = ${APPLICATION_ID}`);
      // user_version lives in the file header and is written inside this
      // transaction: the step and its bump commit or vanish together.
      db.pragma(`user_version = ${step.version}`);
    }).immediate();
  }
  return { from, to: userVersion(db) };
}

export function userVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * A lineage database carries our application_id. A SQLite file with someone
 * else's id, or an unversioned one that already has tables, is not ours: we
 * refuse it instead of adding our tables into it.
 */
function checkOwnership(db: Db, file: string, version: number): void {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  if (applicationId !== 0 && applicationId !== APPLICATION_ID) {
    throw new InputError('is a SQLite database of another application, not a lineage database', { file });
  }
  if (version === 0) {
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
    if (tables.n > 0) throw new InputError('is a SQLite database but not a lineage database (no lineage schema version)', { file });
  } else if (applicationId !== APPLICATION_ID) {
    throw new InputError('is a SQLite database but not a lineage database (no lineage application id)', { file });
  }
}
