import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';
import { runServe } from '../../src/cli/serve-session.js';
import { ServeSettingsSchema } from '../../src/cli/serve-settings.js';
import { stagePolicy } from '../../src/dataplane/index.js';
import { waitFor } from '../wait-for.js';
import { gatedClock } from './gated-clock.js';

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

  // Serving and evolving race each other in real time; these runs are unpaced and
  // hold the data plane at one point until the control plane has done what the
  // check is about (an observed event), so the outcome does not depend on how fast the machine is.
  it('keeps serving when every cycle fails (LLM endpoint down)', async () => {
    const dir = workdir();
    const db = join(dir, 'live.db');
    const gated = gatedClock();
    const report = await runServe({
      dbPath: db,
      resume: false,
      settings: smallSettings({ durationMinutes: 8 }),
      controlPlane: {
        windowMinutes: 1, warmupMinutes: 0.5, cycleMaxMinutes: 0.2, threads: 1, cpuLimitMs: 1000, maxBackoffSeconds: 1, backoffSeconds: 0.1,
        mutator: 'llm', llm: { baseURL: 'http://127.0.0.1:9/v1', model: 'none', apiKey: 'x', timeoutMs: 500 },
      },
      stagingDir: join(dir, 'staging'),
      clock: gated.clock,
      // Once cycles can run (150 s recorded: warm-up, the window and the validation window before it), wait at 160 s for one to have failed.
      onStatus: (s) => gated.holdOnce(s.simSeconds >= 160, /^cycle \d+ failed/),
      log: gated.log,
    });
    expect(report.simMinutes).toBe(8);
    expect(report.stop).toBe('ended');
    expect(report.droppedRequests).toBe(0);
    expect(report.deployments).toBe(0);
    expect(report.cyclesByStatus.failed ?? 0).toBeGreaterThan(0);
    expect(gated.lines.join('\n')).toMatch(/failed/);
  }, 120_000);

  it('evolves past a bad starting policy: stages, hot-swaps and records the deployment', async () => {
    const dir = workdir();
    const db = join(dir, 'live.db');
    const gated = gatedClock();
    const report = await runServe({
      dbPath: db,
      resume: false,
      settings: smallSettings({ durationMinutes: 12, policyName: 'eight-prefill.js', policyCode: readFileSync(badPolicy(dir), 'utf8') }),
      // Cycles end by their iteration count (the time limit is a backstop far away).
      controlPlane: { windowMinutes: 2, warmupMinutes: 1, cycleMaxMinutes: 5, iterationsPerCycle: 2, threads: 1, islands: 2, cpuLimitMs: 1000 },
      stagingDir: join(dir, 'staging'),
      clock: gated.clock,
      // Once cycles can run (300 s recorded: warm-up, the window and the validation window before it), wait at 320 s for one to have staged its winner.
      onStatus: (s) => gated.holdOnce(s.simSeconds >= 320, /^cycle \d+ (finished|timed_out) at [^:]*: .*, staged/),
      log: gated.log,
    });
    const out = report;
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
    // Each signal is sent once the database shows the progress the check is about, however long that takes.
    const stopWhen = async (signal: NodeJS.Signals, ready: () => boolean) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      let gone: number | null | undefined;
      void exited.then((c) => (gone = c));
      await waitFor(ready, { everyMs: 100, failed: () => (gone === undefined ? null : `serve exited (${gone}) before the awaited progress: ${stderr.slice(-500)}`) });
      child.kill(signal);
      return { code: await exited, stdout };
    };
    // Run 1 has served (and saved) at least a simulated minute.
    const interrupted = await stopWhen('SIGINT', () => (readOnly(db, (d) => simSecondsOf(d, 1)) ?? 0) >= 60);
    expect(interrupted.code).toBe(0);
    expect(interrupted.stdout).toMatch(/interrupted/);
    let sqlite = new Database(db, { readonly: true });
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(sqlite.prepare('SELECT status FROM runs').get()).toEqual({ status: 'interrupted' });
    expect(sqlite.prepare("SELECT count(*) AS n FROM cycles WHERE status = 'running'").get()).toEqual({ n: 0 });
    sqlite.close();

    // Run 2 is killed during its first cycle, after a simulated minute was saved.
    const killed = await stopWhen('SIGKILL', () =>
      readOnly(db, (d) => (simSecondsOf(d, 2) ?? 0) >= 60 && d.prepare("SELECT count(*) AS n FROM cycles WHERE run = 2 AND status = 'running'").pluck().get() === 1) ?? false,
    );
    expect(killed.code).toBeNull();
    sqlite = new Database(db, { readonly: true });
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    const reached = simSecondsOf(sqlite, 2);
    sqlite.close();
    expect(reached).toBeGreaterThanOrEqual(60);

    // Whole minutes: a multiple of the 5 s monitoring step, where the simulation ends exactly.
    const duration = Math.ceil(reached! / 60) + 2;
    const resumed = await cli(['serve', '--resume', '--db', db, '--duration-min', String(duration), '--speed', '0', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const out = JSON.parse(resumed.stdout);
    expect(out.run).toBe(2);
    expect(out.stop).toBe('ended');
    expect(out.droppedRequests).toBe(0);
    expect(out.simMinutes).toBe(duration);
    expect(resumed.stderr).toMatch(/resumed/);
    sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare('SELECT id, status FROM runs ORDER BY id').all()).toEqual([
      { id: 1, status: 'interrupted' },
      { id: 2, status: 'finished' },
    ]);
    expect(sqlite.prepare("SELECT count(*) AS n FROM cycles WHERE status = 'running'").get()).toEqual({ n: 0 });
    sqlite.close();
  }, 180_000);

  it('records a policy staged by hand as an external candidate, with its deployment and its rollback', async () => {
    const dir = workdir();
    const db = join(dir, 'live.db');
    const staging = join(dir, 'staging');
    const hotfix = readFileSync(join(process.cwd(), 'seeds', 'greedy.js'), 'utf8');
    // Asks to reschedule at every step; its schedule answers once, then throws: rolled back after 3 attempts.
    const breaks = 'let plans = 0;\nfunction shouldReschedule(ctx) { return true; }\nfunction schedule(ctx) { if (plans++ > 0) throw new Error("broken"); return { roles: ctx.plan.roles }; }\n';
    const stageAt: [number, () => void][] = [
      [60, () => stagePolicy(staging, { name: 'hotfix.js', code: hotfix, candidateId: null })],
      [180, () => stagePolicy(staging, { name: 'breaks.js', code: breaks, candidateId: null })],
    ];
    const report = await runServe({
      dbPath: db,
      resume: false,
      settings: ServeSettingsSchema.parse({
        workload: 'cc', agents: 20, speed: 0, durationMinutes: 6, segmentMinutes: 3,
        policyName: 'static-4p5d.js', policyCode: readFileSync(join(process.cwd(), 'seeds', 'static-4p5d.js'), 'utf8'), cpuLimitMs: 1000,
      }),
      // Snapshots longer than the run: no cycle starts, the only deployments are the hand-staged ones.
      controlPlane: { windowMinutes: 30, warmupMinutes: 1, threads: 1 },
      stagingDir: staging,
      onStatus: (s) => {
        while (stageAt.length > 0 && s.simSeconds >= stageAt[0]![0]) stageAt.shift()![1]();
      },
    });
    expect(stageAt).toEqual([]);
    expect(report).toMatchObject({ stop: 'ended', cycles: 0, deployments: 2, rollbacks: 1, droppedRequests: 0 });
    expect(report.policies.map((p) => p.policy.name)).toEqual(['static-4p5d.js', 'hotfix.js', 'breaks.js', 'hotfix.js']);
    const sqlite = new Database(db, { readonly: true });
    const rows = sqlite
      .prepare('SELECT d.candidate, d.replaced_candidate AS replaced, d.rolled_back_at AS rolledBack, c.mutator, c.code FROM deployments d JOIN candidates c ON c.id = d.candidate ORDER BY d.id')
      .all() as { candidate: number; replaced: number | null; rolledBack: number | null; mutator: string; code: string }[];
    sqlite.close();
    expect(rows.map((r) => r.mutator)).toEqual(['deployed', 'external', 'external']);
    expect(rows[1]).toMatchObject({ code: hotfix, replaced: rows[0]!.candidate, rolledBack: null });
    expect(rows[2]).toMatchObject({ code: breaks, replaced: rows[1]!.candidate });
    expect(rows[2]!.rolledBack).toBeGreaterThan(180);
  }, 120_000);
});

function smallSettings(over: Record<string, unknown> = {}) {
  return ServeSettingsSchema.parse({
    workload: 'cc', agents: 20, speed: 0, durationMinutes: 6, segmentMinutes: 3, cpuLimitMs: 1000,
    policyName: 'evolving-infra.js', policyCode: readFileSync(join(process.cwd(), 'seeds', 'evolving-infra.js'), 'utf8'),
    ...over,
  });
}

function readOnly<T>(db: string, read: (d: Database.Database) => T): T | undefined {
  if (!existsSync(db)) return undefined;
  let d: Database.Database | undefined;
  try {
    d = new Database(db, { readonly: true, fileMustExist: true });
    return read(d);
  } catch {
    return undefined; // not created yet, or the schema is being written
  } finally {
    d?.close();
  }
}

function simSecondsOf(d: Database.Database, run: number): number | undefined {
  const value = d.prepare("SELECT value FROM run_state WHERE run = ? AND key = 'simSeconds'").pluck().get(run) as string | undefined;
  return value === undefined ? undefined : Number(value);
}
