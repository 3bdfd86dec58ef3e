import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLineageStore } from '../../src/store/index.js';
import { tempDbPath } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/commit-loop.mjs', import.meta.url));
const PER_ITERATION = 8;
const SPIN_MS = 150;

/**
 * The child runs the store as plain JS. Rather than building the whole
 * project (whose other parts may be mid-edit) into dist/, transpile just the
 * store and the modules it imports into a temporary directory, with a
 * node_modules link so that better-sqlite3 and zod resolve.
 */
function buildStore(): string {
  const out = mkdtempSync(join(tmpdir(), 'lineage-store-build-'));
  const pending = ['src/store/index.ts'];
  const done = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (done.has(file)) continue;
    done.add(file);
    const source = readFileSync(join(root, file), 'utf8');
    for (const match of source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)) {
      pending.push(posix.normalize(posix.join(posix.dirname(file), `${match[1]}.ts`)));
    }
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: file,
    }).outputText;
    const target = join(out, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
  }
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  return join(out, 'src/store/index.js');
}

interface Round {
  started: number;
  committed: Map<number, number[]>;
  killedInside: number | undefined;
}

/**
 * Run the loop until `commits` iterations are committed, then SIGKILL it as
 * soon as it reports being inside the next transaction.
 */
function runAndKill(storeIndex: string, db: string, run: number, commits: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture, storeIndex, db, String(run), String(PER_ITERATION), String(SPIN_MS), String(commits)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const round: Round = { started: -1, committed: new Map(), killedInside: undefined };
    let stderr = '';
    let buffered = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const [word, n, ids] = buffered.slice(0, newline).split(' ');
        buffered = buffered.slice(newline + 1);
        if (word === 'start') round.started = Number(n);
        if (word === 'committed') round.committed.set(Number(n), ids!.split(',').map(Number));
        if (word === 'inside' && round.committed.size >= commits && round.killedInside === undefined) {
          round.killedInside = Number(n);
          child.kill('SIGKILL');
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(round);
      else reject(new Error(`the commit loop exited by itself (code ${code}): ${stderr}`));
    });
  });
}

interface Snapshot {
  rows: { id: number; iteration: number; code_hash: string }[];
}

/** Everything a killed run must satisfy when reopened. Returns its candidates for the next round's comparison. */
function checkAfterKill(db: string, run: number, round: Round, before: Snapshot): Snapshot {
  const raw = new Database(db);
  expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(raw.pragma('foreign_key_check')).toEqual([]);
  const rows = raw.prepare('SELECT id, iteration, code_hash FROM candidates WHERE run = ? ORDER BY id').all(run) as Snapshot['rows'];
  const perIteration = raw
    .prepare('SELECT iteration, count(*) AS n FROM candidates WHERE run = ? GROUP BY iteration ORDER BY iteration')
    .all(run) as { iteration: number; n: number }[];
  raw.close();

  const store = openLineageStore(db);
  const checkpoint = store.loadCheckpoint(run)!;
  const lastSeen = Math.max(...round.committed.keys());
  // The kill landed inside the transaction of the next iteration: it is gone,
  // and the checkpoint is the last iteration the child saw committed.
  expect(round.killedInside).toBe(lastSeen + 1);
  expect(checkpoint.iteration).toBe(lastSeen);
  expect(rows.some((r) => r.iteration === round.killedInside)).toBe(false);
  // Iterations are contiguous from 0, each one complete.
  expect(perIteration.map((r) => r.iteration)).toEqual(Array.from({ length: checkpoint.iteration + 1 }, (_, i) => i));
  expect(perIteration.every((r) => r.n === PER_ITERATION)).toBe(true);
  expect(rows).toHaveLength((checkpoint.iteration + 1) * PER_ITERATION);
  // The checkpoint refers to the last committed iteration's ids, which exist.
  expect(checkpoint.state.elites).toEqual(round.committed.get(lastSeen));
  // Every iteration the child reported committed is there, with the same ids.
  for (const [iteration, ids] of round.committed) {
    expect(rows.filter((r) => r.iteration === iteration).map((r) => r.id)).toEqual(ids);
  }
  // Ids are unique and increase with the iteration.
  expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  for (let i = 1; i < rows.length; i++) {
    expect(rows[i]!.id).toBeGreaterThan(rows[i - 1]!.id);
    expect(rows[i]!.iteration).toBeGreaterThanOrEqual(rows[i - 1]!.iteration);
  }
  // Nothing committed before was lost or changed: the count only grew.
  expect(rows.length).toBeGreaterThan(before.rows.length);
  expect(rows.slice(0, before.rows.length)).toEqual(before.rows);
  expect(store.countCandidates(run)).toBe(rows.length);
  store.close();
  return { rows };
}

let storeIndex: string;
beforeAll(() => {
  storeIndex = buildStore();
});

describe('SIGKILL during evolution, then resume', () => {
  it('keeps every committed iteration, drops the one in flight, and resumes where the checkpoint says', async () => {
    const db = tempDbPath('killed.db');
    const setup = openLineageStore(db);
    const run = setup.createRun({ name: 'killed', config: { islands: 4 }, seed: 1 });
    setup.close();

    let snapshot: Snapshot = { rows: [] };
    let expectedStart = 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      const round = await runAndKill(storeIndex, db, run, 3 + attempt);
      // The resumed process continued at the iteration after the checkpoint.
      expect(round.started).toBe(expectedStart);
      expect(Math.min(...round.committed.keys())).toBe(expectedStart);
      snapshot = checkAfterKill(db, run, round, snapshot);
      expectedStart = Math.max(...round.committed.keys()) + 1;
    }

    // A final resume in-process, through the API, continues the same sequence.
    const store = openLineageStore(db);
    store.reopenRun(run);
    const checkpoint = store.loadCheckpoint(run)!;
    expect(checkpoint.iteration + 1).toBe(expectedStart);
    const ids = store.commitIteration(
      run,
      checkpoint.iteration + 1,
      [{ island: 0, mutator: 'structural', code: 'function schedule(ctx) { return ctx.plan; }', status: 'evaluated', fitness: 1, parents: [(checkpoint.state.elites as number[])[0]!] }],
      { elites: [] },
    );
    expect(ids[0]).toBeGreaterThan(snapshot.rows[snapshot.rows.length - 1]!.id);
    expect(store.countCandidates(run)).toBe(snapshot.rows.length + 1);
    expect(store.getRun(run)?.status).toBe('running');
    store.close();
  }, 60_000);
});
