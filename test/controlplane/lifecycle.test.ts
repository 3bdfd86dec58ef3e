import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ControlPlane } from '../../src/controlplane/index.js';
import { EvaluatorPool } from '../../src/evolve/pool/evaluator-pool.js';
import { TaskClock } from '../../src/evolve/pool/task.js';
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
      await waitFor(() => maxIteration(db, 1) >= 2, { failed: () => (cp.running ? null : 'the control plane stopped') });
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
  }, 300_000);

  it('serve --resume after SIGKILL: the same run continues, the killed cycle is interrupted, the warm start, deployment and time are restored', async () => {
    const dir = tmpDir();
    const db = join(dir, 'serve.db');
    const start = join(dir, 'start.js');
    writeFileSync(start, badPolicy().code);
    const child = spawn(process.execPath, ['--no-node-snapshot', resolve('test/controlplane/fixtures/serve-child.mjs'), db, seedsDir(), join(dir, 'staging'), start], { stdio: 'ignore' });
    try {
      await waitFor(() => maxIteration(db, 1) >= 2, { everyMs: 100, failed: () => (child.exitCode === null && child.signalCode === null ? null : `serve-child exited (${child.exitCode ?? child.signalCode})`) });
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
  }, 300_000);

  it('a cycle evaluates in worker threads: main-thread ticks run while an evaluation a worker began is unanswered', async () => {
    // How responsive the main thread stays (event-loop delay, utilisation) is a
    // speed figure: npm run bench:loop measures it. Here, events, not time: the
    // worker that takes a task sets the task's clock flag (TaskClock.start, in
    // the worker thread), and the pool's evaluate() promise settles when the
    // answer is back. A main-thread tick that sees a task begun and not yet
    // answered, then another tick with that same task still out, can only
    // happen if the evaluation runs on another thread: an evaluation on the
    // main thread (synchronous, as evaluatePolicy is) would hold the main
    // thread from its start to its answer.
    const db = join(tmpDir(), 'serve.db');
    const snapshot = smallSnapshot(9);
    const clocks: SharedArrayBuffer[] = [];
    const answered = new Set<SharedArrayBuffer>();
    const createClock = TaskClock.create.bind(TaskClock);
    const clockSpy = vi.spyOn(TaskClock, 'create').mockImplementation(() => {
      const clock = createClock();
      clocks.push(clock);
      return clock;
    });
    // Both ways a task reaches a worker (a replay of a kept trajectory that may stop where it diverges, and a plain evaluation).
    const answeredSpy = <M extends 'evaluate' | 'evaluateOrDiverge'>(method: M) => {
      const original = EvaluatorPool.prototype[method] as (this: EvaluatorPool, task: never) => Promise<unknown>;
      return vi.spyOn(EvaluatorPool.prototype, method).mockImplementation(function (this: EvaluatorPool, task: never) {
        const at = clocks.length;
        const answer = original.call(this, task);
        // runTask makes the task's clock before its first await, so it is the one just made.
        const clock = clocks[at];
        if (clock) void answer.finally(() => answered.add(clock)).catch(() => {});
        return answer as never;
      } as never);
    };
    const spies = [answeredSpy('evaluate'), answeredSpy('evaluateOrDiverge')];
    const cp = await ControlPlane.open({
      dbPath: db,
      config: smallConfig({ threads: 1, batch: 2, iterationsPerCycle: 4 }),
      snapshot: () => snapshot,
      deployed: () => ({ ...badPolicy(), candidateId: null }),
      stage: fakeStager().stage,
    });
    /** Per task: main-thread ticks that saw it begun by a worker and not yet answered. */
    const ticksDuring = new Map<SharedArrayBuffer, number>();
    let running = true;
    const tick = () => {
      for (const clock of clocks) {
        if (!answered.has(clock) && TaskClock.elapsed(clock) !== null) ticksDuring.set(clock, (ticksDuring.get(clock) ?? 0) + 1);
      }
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
      clockSpy.mockRestore();
      for (const spy of spies) spy.mockRestore();
    }
    // Every evaluation went through the pool, and each was answered.
    expect(clocks.length).toBeGreaterThan(8);
    expect(answered.size).toBe(clocks.length);
    // The main thread ran at least twice while one evaluation was out in a worker.
    const most = Math.max(0, ...ticksDuring.values());
    expect(most, `ticks during evaluations: ${[...ticksDuring.values()].join(', ')}`).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
