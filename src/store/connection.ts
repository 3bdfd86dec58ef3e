import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { InfrastructureError, InputError } from '../common/errors.js';

export type Db = Database.Database;

export interface ConnectionOptions {
  /** Open read-only (lineage, show, export): never creates, migrates or writes. */
  readonly?: boolean;
  /** Create the file (and its parent directories) when missing. Default: true unless readonly. */
  create?: boolean;
  /** How long a statement waits for another process's write lock before failing. */
  busyTimeoutMs?: number;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * Open the SQLite file and set the connection's pragmas. The schema is the
 * caller's business (schema.ts); this only gets a usable connection or throws
 * an InputError naming the file.
 */
export function openConnection(path: string, options: ConnectionOptions = {}): Db {
  const readonly = options.readonly ?? false;
  const create = !readonly && (options.create ?? true);
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) throw new InputError('is a directory, not a lineage database', { file: path });
  } else {
    // Checked here rather than left to SQLite so that a read-only open of a
    // mistyped path fails with a clear message and leaves no empty file behind.
    if (!create) throw new InputError('no such lineage database', { file: path });
    mkdirSync(dirname(path), { recursive: true });
  }

  let db: Db | undefined;
  try {
    db = new Database(path, {
      readonly,
      fileMustExist: !create,
      timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
    });
    // The first statement reads the header: this is where a file that is not
    // SQLite fails (SQLITE_NOTADB), before any pragma changes anything.
    db.pragma('schema_version', { simple: true });
    if (!readonly) {
      // WAL lets the lineage commands read while `evolve` writes. WAL with
      // synchronous=NORMAL fsyncs the WAL only at checkpoints, not at every
      // commit: a committed transaction is in the WAL file (the OS page cache)
      // as soon as COMMIT returns, so it survives the process dying, SIGKILL
      // included. Only a power loss or kernel crash can lose the last few
      // commits, and even then the database stays consistent (never corrupt).
      // That is the right trade for a lineage that is re-creatable by running
      // again, at a fraction of FULL's fsync cost per iteration.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    // Per connection, off by default in SQLite: without it the REFERENCES
    // clauses of the schema are documentation only.
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db?.close();
    throw translateSqliteError(error, path);
  }
}

/**
 * Map a SQLite failure to the error class that decides what happens next, by
 * its result code (never its message): a file that is not a database, is
 * corrupt or cannot be opened is the user's input (exit 2); a busy lock, an
 * I/O error or a full disk is infrastructure (exit 1, may be retried).
 * Anything else (a constraint or SQL error) is a bug and is passed through.
 */
export function translateSqliteError(error: unknown, file: string): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  const code = error.code;
  if (code.startsWith('SQLITE_NOTADB')) return new InputError('not a SQLite database', { file });
  if (code.startsWith('SQLITE_CORRUPT')) return new InputError(`database is corrupt (${error.message})`, { file });
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_AUTH')) {
    return new InputError(`cannot open database (${error.message})`, { file });
  }
  for (const infra of ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_NOMEM', 'SQLITE_PROTOCOL']) {
    if (code.startsWith(infra)) return new InfrastructureError(`${file}: ${error.message} (${code})`, { cause: error });
  }
  return error;
}

const statementCache = new WeakMap<Db, Map<string, Database.Statement>>();

/**
 * A prepared statement, compiled once per connection: the store runs the same
 * few statements thousands of times per run.
 */
export function prepared<Row = unknown>(db: Db, sql: string): Database.Statement<unknown[], Row> {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement as Database.Statement<unknown[], Row>;
}

/** ISO-8601 UTC with milliseconds, the format of every wall-clock column. */
export const NOW_SQL = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
