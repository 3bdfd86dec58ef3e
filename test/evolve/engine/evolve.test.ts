import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../wait-for.js';
import { EvolutionRun, EvolveConfigSchema, type EvolveConfigInput } from '../../../src/evolve/engine/index.js';
import { runCli } from '../../../src/cli/main.js';
import { bufferIO } from '../../../src/cli/io.js';
import { candidateRows, needsCompiledWorkers, SMALL_RUN, tmpLineageDb } from './small-run.js';

needsCompiledWorkers();

const small = SMALL_RUN;

function tmpDb(): string {
  return tmpLineageDb('ap-evolve-');
}

async function evolve(config: EvolveConfigInput, db: string) {
  const run = await EvolutionRun.open(EvolveConfigSchema.parse(config), db, false);
  const best: (number | null)[] = [];
  try {
    const summary = await run.run({ onIteration: (p) => best.push(p.bestFitness) });
    return { summary, best };
  } finally {
    run.close();
  }
}

function lineage(db: string) {
  return candidateRows(db, 'iteration, island, mutator, code_hash, status, failure_kind, fitness, cell');
}

describe('evolve', () => {
  it('same seed, fixed sched cost: the same lineage, and the best never gets worse', async () => {
    const a = tmpDb();
    const b = tmpDb();
    const ra = await evolve({ ...small, iterations: 4, seed: 5 }, a);
    await evolve({ ...small, iterations: 4, seed: 5 }, b);
    const la = lineage(a);
    expect(la.length).toBeGreaterThan(6 + 4);
    const lb = lineage(b);
    for (let i = 0; i < la.length; i++) expect(lb[i], `candidate ${i}`).toEqual(la[i]);
    expect(lb.length).toBe(la.length);
    for (let i = 1; i < ra.best.length; i++) expect(ra.best[i]!).toBeLessThanOrEqual(ra.best[i - 1]!);
    expect(ra.summary.seedsBest).not.toBeNull();
    expect(ra.summary.best!.fitness).toBeLessThanOrEqual(ra.summary.seedsBest!.fitness);
  }, 240_000);

  it('hostile candidates are recorded as failed and do not stall the run', async () => {
    const db = tmpDb();
    // Two well-behaved seeds beside the hostile ones.
    const seeds = mkdtempSync(join(tmpdir(), 'ap-seeds-'));
    for (const f of ['greedy.js', 'static-4p5d.js']) copyFileSync(resolve('seeds', f), join(seeds, f));
    for (const f of ['spin.js', 'bomb.js']) copyFileSync(resolve('test/evolve/fixtures/hostile-seeds', f), join(seeds, f));
    const { summary } = await evolve({ ...small, seedsDir: seeds, iterations: 2, schedCost: 'zero' }, db);
    expect(summary.iterations).toBe(2);
    const rows = lineage(db) as { failure_kind: string | null; status: string }[];
    const kinds = rows.map((r) => r.failure_kind);
    expect(kinds).toContain('timeout');
    expect(kinds).toContain('memory');
    expect(rows.some((r) => r.status === 'evaluated')).toBe(true);
  }, 240_000);
});

describe('evolve command', () => {
  async function cli(args: string[]) {
    const io = bufferIO();
    const code = await runCli(args, io);
    return { code, stdout: io.stdout, stderr: io.stderr };
  }

  it('refuses the llm mutator without an endpoint, at once, with one line', async () => {
    const saved = { ...process.env };
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
    try {
      const r = await cli(['evolve', '--mutator', 'llm', '--db', tmpDb()]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/endpoint|OPENAI_BASE_URL/);
    } finally {
      process.env = saved;
    }
  });

  it('bad input exits 2 with one line', async () => {
    for (const args of [['--iterations', '-1'], ['--mutator', 'mix:llm=x'], ['--seeds', '/nonexistent/seeds'], ['--exploit', '2'], ['--workload', 'nope'], ['--split', '4P4D']]) {
      const db = tmpDb();
      const r = await cli(['evolve', ...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(db), `${args.join(' ')} leaves no database`).toBe(false);
    }
    const r = await cli(['lineage', '--db', '/nonexistent/x.db']);
    expect(r.code).toBe(2);
  });

  it('SIGKILL during evolve, then --resume: integrity ok, iterations continue, candidates only grow', async () => {
    const db = tmpDb();
    const args = ['bin/autopoiesis.js', 'evolve', '--db', db, '--agents', '16', '--window-min', '1.5', '--warmup-min', '0.5', '--islands', '2', '--threads', '2', '--iterations', '200', '--sched-cost', 'fixed:1'];
    const child = spawn(process.execPath, ['--no-node-snapshot', ...args], { stdio: 'ignore' });
    // Wait until a few iterations are committed (however long that takes: the test's timeout is the backstop), then kill without warning.
    let committed = 0;
    let exited = false;
    child.once('exit', () => (exited = true));
    const readCommitted = (): boolean => {
      if (!existsSync(db)) return false;
      try {
        const d = new Database(db, { readonly: true });
        committed = (d.prepare('SELECT max(iteration) AS it FROM candidates').get() as { it: number | null }).it ?? 0;
        d.close();
      } catch {
        // the writer holds the file: try again
      }
      return committed >= 3;
    };
    await waitFor(readCommitted, { everyMs: 200, failed: () => (exited ? 'evolve ended before it was killed' : null) });
    expect(exited, 'evolve ended before it was killed').toBe(false);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(committed).toBeGreaterThanOrEqual(3);

    const d = new Database(db, { readonly: true });
    const before = (d.prepare('SELECT count(*) AS n, max(iteration) AS it, max(id) AS id FROM candidates').get() as { n: number; it: number; id: number });
    d.close();
    const r = await cli(['evolve', '--db', db, '--resume', '--iterations', String(before.it + 2), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.iterations).toBe(before.it + 2);
    const after = new Database(db, { readonly: true });
    expect((after.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check).toBe('ok');
    const rows = after.prepare('SELECT id, iteration FROM candidates ORDER BY id').all() as { id: number; iteration: number }[];
    after.close();
    expect(rows.length).toBeGreaterThan(before.n);
    const iterations = [...new Set(rows.map((x) => x.iteration))];
    expect(iterations).toEqual(Array.from({ length: before.it + 3 }, (_, i) => i));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.iteration).toBeGreaterThanOrEqual(rows[i - 1]!.iteration);
    expect(rows.filter((x) => x.id > before.id).every((x) => x.iteration > before.it)).toBe(true);
  }, 300_000);
});
