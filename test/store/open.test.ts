import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { InfrastructureError, InputError } from '../../src/common/errors.js';
import { openLineageStore, SCHEMA_VERSION } from '../../src/store/index.js';
import { tempDbPath, tempDir } from './helpers.js';

const TABLES = ['candidate_parents', 'candidates', 'cycles', 'deployments', 'migrations', 'run_state', 'runs', 'validations'];

function raw(path: string, options?: Database.Options) {
  return new Database(path, options);
}

function expectInputError(fn: () => unknown, file: string): InputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(2);
    // One line that names the file.
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).not.toContain('\n');
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

describe('opening a lineage database', () => {
  it('creates the file, its directories and the whole schema from nothing', () => {
    const path = join(tempDir(), 'nested', 'deeper', 'x.db');
    const store = openLineageStore(path);
    store.close();
    const db = raw(path);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all();
    expect(tables).toEqual(TABLES);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").pluck().all();
    expect(indexes).toEqual(expect.arrayContaining(['candidates_run_fitness', 'candidates_code_hash', 'candidate_parents_parent']));
    db.close();
  });

  it('turns on foreign keys and NORMAL sync on its connection', () => {
    const path = tempDbPath();
    const store = openLineageStore(path);
    // A candidate of a run that does not exist is refused by the foreign key.
    expect(() => store.insertCandidate({ run: 99, iteration: 0, island: 0, mutator: 'm', code: 'x', status: 'evaluated', fitness: 1 })).toThrow(/FOREIGN KEY/);
    store.close();
  });

  it('reopens idempotently: same version, data kept, no step applied twice', () => {
    const path = tempDbPath();
    const first = openLineageStore(path);
    const run = first.createRun({ name: 'a', config: { islands: 4 }, seed: 1 });
    first.close();
    for (let i = 0; i < 3; i++) {
      const again = openLineageStore(path);
      expect(again.getRun(run)?.config).toEqual({ islands: 4 });
      expect(again.listRuns()).toHaveLength(1);
      again.close();
    }
    const db = raw(path);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('refuses a database from a newer schema version, without touching it', () => {
    const path = tempDbPath();
    openLineageStore(path).close();
    const db = raw(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const error = expectInputError(() => openLineageStore(path), path);
    expect(error.message).toMatch(/newer/);
    expectInputError(() => openLineageStore(path, { readonly: true }), path);
    const after = raw(path);
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    after.close();
  });

  it('refuses a file that is not SQLite, read-write and read-only, and leaves it as it was', () => {
    const path = tempDbPath('notes.db');
    const garbage = 'this is a text file, not a database\n'.repeat(50);
    writeFileSync(path, garbage);
    expectInputError(() => openLineageStore(path), path);
    expectInputError(() => openLineageStore(path, { readonly: true }), path);
    expect(readFileSync(path, 'utf8')).toBe(garbage);
  });

  it('refuses a SQLite database of something else instead of adding tables to it', () => {
    const path = tempDbPath('other.db');
    const db = raw(path);
    db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY)');
    db.close();
    expectInputError(() => openLineageStore(path), path);
    const after = raw(path);
    expect(after.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get()).toBe(1);
    after.close();

    const foreign = tempDbPath('foreign.db');
    const other = raw(foreign);
    other.pragma('application_id = 1234');
    other.pragma('user_version = 1');
    other.close();
    expectInputError(() => openLineageStore(foreign), foreign);
  });

  it('read-only: a missing file is an InputError and no file is created', () => {
    const dir = tempDir();
    const path = join(dir, 'missing', 'x.db');
    expectInputError(() => openLineageStore(path, { readonly: true }), path);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
    const flat = join(dir, 'x.db');
    expectInputError(() => openLineageStore(flat, { readonly: true }), flat);
    expect(existsSync(flat)).toBe(false);
    expectInputError(() => openLineageStore(flat, { create: false }), flat);
    expect(existsSync(flat)).toBe(false);
  });

  it('read-only: an empty file has no lineage schema and is refused', () => {
    const path = tempDbPath();
    writeFileSync(path, '');
    expectInputError(() => openLineageStore(path, { readonly: true }), path);
  });

  it('read-only: reads a database while a writer has it open, and cannot write', () => {
    const path = tempDbPath();
    const writer = openLineageStore(path);
    const run = writer.createRun({ config: {}, seed: 3 });
    const reader = openLineageStore(path, { readonly: true });
    expect(reader.readonly).toBe(true);
    expect(reader.getRun(run)?.seed).toBe(3);
    expect(() => reader.createRun({ config: {}, seed: 4 })).toThrow(InfrastructureError);
    reader.close();
    writer.close();
  });

  it('refuses a directory', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'x.db'));
    expectInputError(() => openLineageStore(join(dir, 'x.db')), join(dir, 'x.db'));
  });
});
