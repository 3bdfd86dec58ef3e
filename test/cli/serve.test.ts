import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

function workdir(): string {
  return mkdtempSync(join(tmpdir(), 'serve-'));
}

const small = ['--workload', 'cc', '--agents', '20', '--speed', '0', '--duration-min', '6', '--segment-min', '3'];

/** A policy that serves fine but is clearly worse than the seeds: 8P1D on 9 nodes. */
function badPolicy(dir: string): string {
  const path = join(dir, 'eight-prefill.js');
  const seed = readFileSync(join(process.cwd(), 'seeds', 'static-4p5d.js'), 'utf8');
  writeFileSync(path, seed.replace('const PREFILL_NODES = 4;', 'const PREFILL_NODES = 8;'));
  return path;
}

describe('autopoiesis serve', () => {
  it('--frozen serves the whole duration with the starting policy and prints the documented JSON', async () => {
    const dir = workdir();
    const db = join(dir, 'live.db');
    const r = await cli(['serve', ...small, '--frozen', '--db', db, '--staging', join(dir, 'staging'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    for (const key of ['run', 'db', 'simMinutes', 'cycles', 'deployments', 'rollbacks', 'droppedRequests', 'metrics', 'segments']) expect(out).toHaveProperty(key);
    expect(out.simMinutes).toBe(6);
    expect(out.cycles).toBe(0);
    expect(out.deployments).toBe(0);
    expect(out.droppedRequests).toBe(0);
    expect(out.segments).toHaveLength(2);
    for (const s of out.segments) expect(Object.keys(s).sort()).toEqual(['e2eMean', 'from', 'split', 'throughput', 'to', 'ttftP95']);
    expect(out.metrics.throughput).toBeGreaterThan(0);
    // The run and its starting deployment are in the lineage.
    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare('SELECT status FROM runs').all()).toEqual([{ status: 'finished' }]);
    expect(sqlite.prepare('SELECT count(*) AS n FROM deployments').get()).toEqual({ n: 1 });
    sqlite.close();
  });

  it('bad input exits 2 with one line and leaves no database', async () => {
    const dir = workdir();
    const db = join(dir, 'live.db');
    const cases = [
      ['serve', '--speed', '0', '--db', db],
      ['serve', ...small, '--split', '4P4D', '--db', db],
      ['serve', ...small, '--policy', join(dir, 'missing.js'), '--db', db],
      ['serve', ...small, '--speed', 'fast', '--db', db],
      ['serve', ...small, '--mutator', 'llm', '--db', db],
    ];
    for (const args of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(existsSync(db), args.join(' ')).toBe(false);
    }
    const resume = await cli(['serve', '--resume', '--db', db]);
    expect(resume.code).toBe(2);
    expect(existsSync(db)).toBe(false);
  });

  it('keeps serving when every cycle fails (LLM endpoint down)', async () => {
    const dir = workdir();
    const db = join(dir, 'live.db');
    const r = await cli([
      'serve', ...small, '--duration-min', '8', '--speed', '40', '--window-min', '1', '--warmup-min', '0.5', '--cycle-max-min', '0.2',
      '--mutator', 'llm', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'none', '--api-key', 'x', '--llm-timeout-ms', '500',
      '--threads', '1', '--cpu-limit-ms', '1000', '--db', db, '--staging', join(dir, 'staging'), '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.simMinutes).toBe(8);
    expect(out.stop).toBe('ended');
    expect(out.droppedRequests).toBe(0);
    expect(out.deployments).toBe(0);
    expect(out.cyclesByStatus.failed ?? 0).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/failed/);
  }, 120_000);

  it('evolves past a bad starting policy: stages, hot-swaps and records the deployment', async () => {
    const dir = workdir();
    const db = join(dir, 'live.db');
    const r = await cli([
      'serve', ...small, '--duration-min', '12', '--speed', '20', '--window-min', '2', '--warmup-min', '1', '--cycle-max-min', '0.25',
      '--threads', '1', '--islands', '2', '--cpu-limit-ms', '1000', '--policy', badPolicy(dir), '--db', db, '--staging', join(dir, 'staging'), '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.droppedRequests).toBe(0);
    expect(out.deployments).toBeGreaterThan(0);
    expect(out.policies.length).toBe(out.deployments + 1);
    const sqlite = new Database(db, { readonly: true });
    const deployments = sqlite.prepare('SELECT candidate, cycle, replaced_candidate AS replaced, fitness_on_snapshot AS fitness FROM deployments ORDER BY id').all() as {
      candidate: number;
      cycle: number | null;
      replaced: number | null;
      fitness: number | null;
    }[];
    expect(deployments[0]!.cycle).toBeNull();
    const swap = deployments[1]!;
    expect(swap.cycle).not.toBeNull();
    expect(swap.replaced).toBe(deployments[0]!.candidate);
    expect(swap.fitness).toBeGreaterThan(0);
    // The winner is a candidate of that cycle.
    expect(sqlite.prepare('SELECT cycle FROM candidates WHERE id = ?').get(swap.candidate)).toEqual({ cycle: swap.cycle });
    sqlite.close();
  }, 180_000);

  it('SIGINT ends cleanly and SIGKILL leaves a database that --resume continues', async () => {
    const dir = workdir();
    const db = join(dir, 'live.db');
    const args = ['--no-node-snapshot', 'bin/autopoiesis.js', 'serve', '--workload', 'cc', '--agents', '20', '--speed', '30', '--duration-min', '30',
      '--window-min', '1', '--warmup-min', '0.5', '--cycle-max-min', '0.2', '--threads', '1', '--islands', '2', '--cpu-limit-ms', '1000',
      '--db', db, '--staging', join(dir, 'staging')];
    const stopWith = async (signal: NodeJS.Signals, afterMs: number) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      await new Promise((r) => setTimeout(r, afterMs));
      child.kill(signal);
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      return { code, stdout };
    };
    const interrupted = await stopWith('SIGINT', 8_000);
    expect(interrupted.code).toBe(0);
    expect(interrupted.stdout).toMatch(/interrupted/);
    let sqlite = new Database(db, { readonly: true });
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(sqlite.prepare('SELECT status FROM runs').get()).toEqual({ status: 'interrupted' });
    expect(sqlite.prepare("SELECT count(*) AS n FROM cycles WHERE status = 'running'").get()).toEqual({ n: 0 });
    sqlite.close();

    const killed = await stopWith('SIGKILL', 8_000);
    expect(killed.code).toBeNull();
    // The killed process was a fresh run (the second in the file); resume it.
    sqlite = new Database(db, { readonly: true });
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    const reached = (sqlite.prepare("SELECT value FROM run_state WHERE run = 2 AND key = 'simSeconds'").get() as { value: string } | undefined)?.value;
    sqlite.close();
    expect(Number(reached)).toBeGreaterThan(0);

    const resumed = await cli(['serve', '--resume', '--db', db, '--duration-min', String(Number(reached) / 60 + 2), '--speed', '0', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const out = JSON.parse(resumed.stdout);
    expect(out.run).toBe(2);
    expect(out.stop).toBe('ended');
    expect(out.droppedRequests).toBe(0);
    expect(out.simMinutes).toBeCloseTo(Number(reached) / 60 + 2, 1);
    expect(resumed.stderr).toMatch(/resumed/);
    sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare('SELECT id, status FROM runs ORDER BY id').all()).toEqual([
      { id: 1, status: 'interrupted' },
      { id: 2, status: 'finished' },
    ]);
    sqlite.close();
  }, 180_000);
});
