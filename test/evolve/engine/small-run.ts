import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll } from 'vitest';
import type { EvolveConfigInput } from '../../../src/evolve/engine/index.js';

/** The evaluator pool runs compiled workers from dist/ (npm test builds first); a test file run alone builds them. */
export function needsCompiledWorkers(): void {
  beforeAll(() => {
    if (!existsSync(resolve('dist/src/evolve/pool/worker.js'))) execFileSync('npx', ['tsc', '-p', '.'], { stdio: 'ignore' });
  }, 120_000);
}

/** A run small enough for a test: 16 cc agents, a 1.5-minute window, 2 islands, 2 threads, batches of 2. */
export const SMALL_RUN: EvolveConfigInput = {
  workload: 'cc',
  agents: 16,
  windowMinutes: 1.5,
  warmupMinutes: 0.5,
  islands: 2,
  threads: 2,
  batch: 2,
  seedsDir: resolve('seeds'),
  schedCost: 'fixed:1',
  migrationEvery: 2,
  // Generous per-call limits: on a loaded test machine a wall-clock watchdog
  // firing in one run and not the other would make the lineages differ.
  cpuLimitMs: 1000,
};

/** A lineage database path in a fresh temporary folder. */
export function tmpLineageDb(prefix: string): string {
  return join(mkdtempSync(join(tmpdir(), prefix)), 'lineage.db');
}

/** A lineage database's candidates, in id order, with the given columns (e.g. 'id, fitness, cell'): what determinism tests compare. */
export function candidateRows(db: string, columns: string): unknown[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(`SELECT ${columns} FROM candidates ORDER BY id`).all();
  } finally {
    d.close();
  }
}
