import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane } from '../../src/controlplane/index.js';
import { badPolicy, ensureBuilt, fakeStager, integrity, query, seedsDir, smallConfig, smallSnapshot, tmpDir, waitFor } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

function maxIteration(db: string, cycle: number): number {
  try {
    return query<{ it: number | null }>(db, 'SELECT max(iteration) AS it FROM candidates WHERE cycle = ?', cycle)[0]!.it ?? -1;
  } catch {
    return -1; // not created yet, or the writer holds it
  }
}

describe('control plane lifecycle', () => {
  it('stop() in the middle of a cycle: the cycle ends interrupted, nothing half-written', async () => {
    const db = join(tmpDir(), 'serve.db');
    const cp = await ControlPlane.open({
      dbPath: db,
      config: smallConfig({ iterationsPerCycle: 1000, cycleMaxMinutes: 10 }),
      snapshot: () => smallSnapshot(6),
      deployed: () => ({ ...badPolicy(), candidateId: null }),
      stage: fakeStager().stage,
    });
    try {
      cp.start();
      expect(await waitFor(() => maxIteration(db, 1) >= 2, 30_000)).toBe(true);
      await cp.stop();
      expect(cp.running).toBe(false);
      // Stopped, not finished: far from its 1000 iterations, and nothing more is written after stop().
      const atStop = maxIteration(db, 1);
      expect(atStop).toBeLessThan(1000);
      expect(cp.cycleInProgress).toBeNull();
      await new Promise((r) => setImmediate(r));
      expect(maxIteration(db, 1)).toBe(atStop);
    } finally {
      await cp.close();
    }
    expect(integrity(db)).toBe('ok');
    expect(query(db, 'SELECT id, status FROM cycles')).toEqual([{ id: 1, status: 'interrupted' }]);
    // The checkpoint is the last iteration written: no row beyond it, none missing.
    const checkpoint = Number(query<{ value: string }>(db, "SELECT value FROM run_state WHERE key = 'iteration'")[0]!.value);
    expect(maxIteration(db, 1)).toBe(checkpoint);
    const its = query<{ iteration: number }>(db, 'SELECT DISTINCT iteration FROM candidates ORDER BY iteration').map((r) => r.iteration);
    expect(its).toEqual(Array.from({ length: checkpoint + 1 }, (_, i) => i));
  }, 60_000);

  it('serve --resume after SIGKILL: the same run continues, the killed cycle is interrupted, the warm start, deployment and time are restored', async () => {
    const dir = tmpDir();
    const db = join(dir, 'serve.db');
    const start = join(dir, 'start.js');
    writeFileSync(start, badPolicy().code);
    const child = spawn(process.execPath, ['--no-node-snapshot', resolve('test/controlplane/fixtures/serve-child.mjs'), db, seedsDir(), join(dir, 'staging'), start], { stdio: 'ignore' });
    try {
      expect(await waitFor(() => maxIteration(db, 1) >= 2, 40_000, 100)).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(query(db, 'SELECT id, status FROM cycles')).toEqual([{ id: 1, status: 'running' }]);
    const lastIteration = maxIteration(db, 1);

    const stager = fakeStager();
    const cp = await ControlPlane.open({
      dbPath: db,
      resume: true,
      // New settings for the rest of the run (short cycles for the test).
      config: smallConfig({ iterationsPerCycle: 1 }),
      snapshot: () => smallSnapshot(8),
      deployed: () => ({ name: 'start', code: cp.resumed!.deployedCode!, candidateId: cp.resumed!.deployment!.candidate }),
      stage: stager.stage,
    });
    try {
      const r = cp.resumed!;
      expect(r.interruptedCycles).toEqual([1]);
      expect(r.deployment).toMatchObject({ replacedCandidate: null, rolledBackAt: null });
      expect(r.deployedCode).toBe(badPolicy().code);
      expect(r.simSeconds).toBeGreaterThan(0);
      expect(r.nextIteration).toBe(lastIteration + 1);
      expect(r.warmStart.length).toBeGreaterThan(0);
      const cycle1 = query<{ id: number }>(db, 'SELECT id FROM candidates WHERE cycle = 1').map((x) => x.id);
      expect(r.warmStart.every((e) => cycle1.includes(e.id) && e.cycle === 1)).toBe(true);
      expect(query(db, 'SELECT status, reason FROM cycles WHERE id = 1')[0]).toMatchObject({ status: 'interrupted', reason: expect.stringMatching(/found running on resume/) });
      expect(query(db, 'SELECT id, status FROM runs')).toEqual([{ id: 1, status: 'running' }]);

      const outcome = await cp.runCycle();
      expect(outcome.status, outcome.reason).toBe('finished');
      expect(outcome.cycleId).toBe(2);
      expect(outcome.startedAt).toBeGreaterThanOrEqual(r.simSeconds);
      const rows = query<{ id: number; iteration: number; mutator: string }>(db, 'SELECT id, iteration, mutator FROM candidates WHERE cycle = 2 ORDER BY id');
      expect(Math.min(...rows.map((x) => x.iteration))).toBe(lastIteration + 1);
      const warmIds = r.warmStart.map((e) => e.id);
      for (const row of rows.filter((x) => x.mutator === 'warm-start')) {
        const parents = query<{ parent: number }>(db, "SELECT parent FROM candidate_parents WHERE child = ? AND role = 'parent'", row.id).map((p) => p.parent);
        expect(parents.every((p) => warmIds.includes(p))).toBe(true);
      }
    } finally {
      await cp.close();
    }
    expect(integrity(db)).toBe('ok');
  }, 90_000);

  it('a cycle runs in worker threads while the main thread keeps running its own work', async () => {
    // How responsive the main thread stays (event-loop delay, utilisation) is a
    // speed figure: npm run bench:loop measures it. Here: the cycle completes
    // with its evaluations while a main-thread task chain keeps running, and
    // that chain ran between the cycle's iteration commits, not only after it.
    const db = join(tmpDir(), 'serve.db');
    const snapshot = smallSnapshot(9);
    const cp = await ControlPlane.open({
      dbPath: db,
      config: smallConfig({ threads: 1, batch: 2, iterationsPerCycle: 4 }),
      snapshot: () => snapshot,
      deployed: () => ({ ...badPolicy(), candidateId: null }),
      stage: fakeStager().stage,
    });
    let ticks = 0;
    const ticksAtIteration = new Map<number, number>();
    let running = true;
    const tick = () => {
      ticks++;
      const it = cp.cycleInProgress?.iteration;
      if (it !== undefined && !ticksAtIteration.has(it)) ticksAtIteration.set(it, ticks);
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    try {
      const outcome = await cp.runCycle();
      expect(outcome.status, outcome.reason).toBe('finished');
      expect(outcome.evaluated).toBeGreaterThan(8);
    } finally {
      running = false;
      await cp.close();
    }
    // The main-thread chain saw the cycle at several of its iterations, with ticks in between.
    const seen = [...ticksAtIteration.values()];
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    expect(ticks).toBeGreaterThan(seen.at(-1)!);
  }, 60_000);
});
