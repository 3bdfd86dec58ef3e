import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { settledDir, stagePolicy, type SlotEvent } from '../../src/dataplane/index.js';
import { expectEveryRequestAccounted, failsFrom, flipper, makePlane, runWith, seed, smallScenario, stepUntil, tempDir, tracked } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function staging() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.staging;
}

describe('hot swap', () => {
  it('deploys a staged policy at the next monitoring step', () => {
    const dir = staging();
    const events: SlotEvent[] = [];
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { stagingDir: dir, onEvent: (e) => events.push(e) });
    try {
      stepUntil(plane, 100);
      expect(plane.status().deployed.name).toBe('static-4p5d');
      const stagedAt = plane.simSeconds;
      stagePolicy(dir, { name: 'flipper', code: flipper(), candidateId: 42, fitness: 123.5, cycle: 3, reason: 'better on the snapshot' });
      expect(plane.step()).toBe(true);
      expect(plane.status().deployed).toEqual({ name: 'flipper', candidateId: 42 });
      expect(events).toEqual([
        {
          type: 'deploy',
          at: stagedAt + 5,
          name: 'flipper',
          candidateId: 42,
          code: flipper(),
          replaced: { name: 'static-4p5d', candidateId: null },
          fitness: 123.5,
          cycle: 3,
          reason: 'better on the snapshot',
        },
      ]);
      // The file is considered once: moved to deployed/, nothing left in staging.
      expect(readdirSync(dir)).toEqual([]);
      expect(readdirSync(settledDir(dir, 'deployed'))).toHaveLength(1);
      // The step record of the swap step already names the new policy.
      expect(plane.records().at(-1)!.policy.name).toBe('flipper');
      stepUntil(plane, 300);
      const result = plane.finish();
      expect(result.events).toHaveLength(1);
      expect(result.segments.map((s) => s.policy.name)).toEqual(['static-4p5d', 'flipper']);
      expect(result.segments[1]!.from).toBe(stagedAt + 5);
      // The flipper did change the split after its deployment.
      expect(result.sim.policy.plansApplied).toBeGreaterThan(0);
    } finally {
      plane.dispose();
    }
  });

  it('never deploys a policy that fails validation', () => {
    const dir = staging();
    // A tighter wall-clock watchdog than the default 10 x cpuLimitMs, so that the spinning policy is stopped quickly.
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { stagingDir: dir, sandbox: { cpuLimitMs: 1000, wallLimitMs: 2000 } });
    try {
      stepUntil(plane, 60);
      const bad = [
        { name: 'syntax', code: 'function shouldReschedule(ctx) {' },
        { name: 'missing', code: 'function shouldReschedule(ctx) { return true; }' },
        { name: 'all-prefill', code: `function shouldReschedule() { return false; } function schedule(ctx) { return { roles: ctx.nodes.map(() => 'P') }; }` },
        { name: 'throws', code: `function shouldReschedule() { throw new Error('no'); } function schedule(ctx) { return { roles: ctx.plan.roles }; }` },
        { name: 'spins', code: `function shouldReschedule() { for (;;) {} } function schedule(ctx) { return { roles: ctx.plan.roles }; }` },
      ];
      const kinds: string[] = [];
      for (const [i, b] of bad.entries()) {
        stagePolicy(dir, { ...b, candidateId: i });
        plane.step();
        const last = plane.events.at(-1)!;
        expect(last).toMatchObject({ type: 'reject', name: b.name, candidateId: i, kind: 'validation' });
        if (last.type === 'reject') kinds.push(last.failureKind!);
        expect(plane.status().deployed.name).toBe('static-4p5d');
        expect(plane.status().pending).toBeNull();
      }
      expect(kinds).toEqual(['compile', 'missing-function', 'invalid-plan', 'throw', 'timeout']);
      stepUntil(plane, 200);
      expect(plane.events.filter((e) => e.type === 'deploy')).toEqual([]);
      expect(readdirSync(settledDir(dir, 'rejected'))).toHaveLength(bad.length);
      expect(existsSync(settledDir(dir, 'deployed'))).toBe(false);
      const result = plane.finish();
      expect(result.policy.failures).toBe(0);
      expect(result.segments.map((s) => s.policy.name)).toEqual(['static-4p5d']);
    } finally {
      plane.dispose();
    }
  });

  it('rolls back a policy that fails K calls in a row after deployment', () => {
    const dir = staging();
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { stagingDir: dir, rollbackAfter: 3 });
    try {
      stepUntil(plane, 60);
      const stagedAt = plane.simSeconds;
      // Passes validation (called at stagedAt), deployed at stagedAt + 5, fails from stagedAt + 10 on.
      stagePolicy(dir, { name: 'breaks-later', code: failsFrom(stagedAt + 10), candidateId: 7 });
      plane.step();
      expect(plane.status().deployed.name).toBe('breaks-later');
      plane.step();
      plane.step();
      expect(plane.status().deployed.name).toBe('breaks-later');
      expect(plane.status().policyFailures).toBe(2);
      plane.step();
      const status = plane.status();
      expect(status.deployed.name).toBe('static-4p5d');
      expect(status.rollbacks).toBe(1);
      expect(status.policyFailures).toBe(3);
      expect(plane.events.map((e) => e.type)).toEqual(['deploy', 'rollback']);
      expect(plane.events[1]).toMatchObject({
        type: 'rollback',
        at: stagedAt + 20,
        name: 'breaks-later',
        candidateId: 7,
        restored: { name: 'static-4p5d', candidateId: null },
      });
      expect((plane.events[1] as { reason: string }).reason).toMatch(/3 failed reschedule attempts in a row.*throw.*broken at/);
      // The restored policy serves again without failures.
      stepUntil(plane, 200);
      expect(plane.status().policyFailures).toBe(3);
      const result = plane.finish();
      expect(result.segments.map((s) => s.policy.name)).toEqual(['static-4p5d', 'breaks-later', 'static-4p5d']);
      expect(result.sim.policy.failures).toEqual([expect.objectContaining({ kind: 'throw', count: 3 })]);
    } finally {
      plane.dispose();
    }
  });

  it('rolls back a policy whose shouldReschedule succeeds but whose schedule fails, K attempts in a row', () => {
    const dir = staging();
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { stagingDir: dir, rollbackAfter: 3 });
    try {
      stepUntil(plane, 60);
      const stagedAt = plane.simSeconds;
      // Always asks to reschedule; its schedule answers once (in the deployed instance), then throws every time.
      const code = `let plans = 0;
function shouldReschedule(ctx) { return true; }
function schedule(ctx) { if (plans++ > 0) throw new Error('schedule broken, call ' + plans); return { roles: ctx.plan.roles }; }`;
      stagePolicy(dir, { name: 'schedule-breaks', code, candidateId: 8 });
      plane.step(); // deployed at stagedAt + 5: its first schedule succeeds
      expect(plane.status()).toMatchObject({ deployed: { name: 'schedule-breaks' }, policyFailures: 0 });
      plane.step();
      plane.step();
      expect(plane.status()).toMatchObject({ deployed: { name: 'schedule-breaks' }, policyFailures: 2, rollbacks: 0 });
      plane.step();
      expect(plane.status()).toMatchObject({ deployed: { name: 'static-4p5d' }, policyFailures: 3, rollbacks: 1 });
      expect(plane.events.map((e) => e.type)).toEqual(['deploy', 'rollback']);
      expect(plane.events[1]).toMatchObject({ type: 'rollback', at: stagedAt + 20, name: 'schedule-breaks', candidateId: 8 });
      expect((plane.events[1] as { reason: string }).reason).toMatch(/3 failed reschedule attempts in a row.*throw.*schedule broken/);
      stepUntil(plane, 200);
      expect(plane.status().policyFailures).toBe(3);
    } finally {
      plane.dispose();
    }
  });

  it('a failure between successful attempts does not add up to a rollback', () => {
    const dir = staging();
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { stagingDir: dir, rollbackAfter: 2 });
    try {
      stepUntil(plane, 60);
      // Every other monitoring call: asks to reschedule and its schedule throws; in between, a clean "no".
      const code = `let calls = 0;
function shouldReschedule(ctx) { calls++; return calls % 2 === 0; }
function schedule(ctx) { if (calls > 1) throw new Error('no plan'); return { roles: ctx.plan.roles }; }`;
      stagePolicy(dir, { name: 'every-other', code, candidateId: 9 });
      stepUntil(plane, 200);
      const status = plane.status();
      expect(status.deployed.name).toBe('every-other');
      expect(status.rollbacks).toBe(0);
      expect(status.policyFailures).toBeGreaterThan(10);
    } finally {
      plane.dispose();
    }
  });

  it('loses and duplicates no request across swaps and rollbacks', () => {
    const dir = staging();
    const scenario = smallScenario({ minutes: 8 });
    const source = tracked(scenario);
    const plane = makePlane(scenario, seed('static-4p5d'), { stagingDir: dir, rollbackAfter: 2, source });
    try {
      const result = runWith(plane, [
        [40, () => stagePolicy(dir, { name: 'flipper', code: flipper(30), candidateId: 1 })],
        [120, () => stagePolicy(dir, { name: 'greedy', code: seed('greedy').code, candidateId: 2 })],
        [200, () => stagePolicy(dir, { name: 'breaks', code: failsFrom(210), candidateId: 3 })],
        [300, () => stagePolicy(dir, { name: 'flipper-2', code: flipper(20), candidateId: 4 })],
      ]);
      expect(result.events.map((e) => `${e.type}:${e.name}`)).toEqual([
        'deploy:flipper',
        'deploy:greedy',
        'deploy:breaks',
        'rollback:breaks',
        'deploy:flipper-2',
      ]);
      expectEveryRequestAccounted(source, result);
      expect(result.sim.transitions.length).toBeGreaterThan(2);
    } finally {
      plane.dispose();
    }
  });

  it('ignores a half-written or tampered file in staging', () => {
    const dir = staging();
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { stagingDir: dir });
    try {
      stepUntil(plane, 30);
      // A temporary file of an atomic write in progress, and a file written in place that is not complete yet.
      const staged = stagePolicy(dir, { name: 'flipper', code: flipper(), candidateId: 9 });
      const full = readFileSync(staged.path, 'utf8');
      rmSync(staged.path);
      writeFileSync(join(dir, '.000001-flipper.js.123.abcd.tmp'), full);
      writeFileSync(join(dir, '000002-half.js'), full.slice(0, full.length - 40));
      plane.step();
      plane.step();
      expect(plane.events).toEqual([]);
      expect(plane.status().deployed.name).toBe('static-4p5d');
      // Left in place (a writer may still be at work), read again once it changes: now complete.
      expect(readdirSync(dir).sort()).toEqual(['.000001-flipper.js.123.abcd.tmp', '000002-half.js']);
      writeFileSync(join(dir, '000002-half.js'), full);
      plane.step();
      plane.step();
      expect(plane.status().deployed.name).toBe('flipper');
    } finally {
      plane.dispose();
    }
  });

  it('deploys only the newest of several files staged within one step; the others are recorded as superseded', () => {
    const dir = staging();
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { stagingDir: dir });
    try {
      stepUntil(plane, 30);
      stagePolicy(dir, { name: 'first', code: flipper(60), candidateId: 1 });
      stagePolicy(dir, { name: 'second', code: flipper(30), candidateId: 2 });
      plane.step();
      expect(plane.events.map((e) => `${e.type}:${e.name}`)).toEqual(['reject:first', 'deploy:second']);
      expect(plane.events[0]).toMatchObject({ kind: 'superseded', candidateId: 1 });
      expect(readdirSync(settledDir(dir, 'rejected'))).toEqual(['000001-first.js']);
      expect(readdirSync(settledDir(dir, 'deployed'))).toEqual(['000002-second.js']);
    } finally {
      plane.dispose();
    }
  });

  it('--frozen ignores the staging area', () => {
    const dir = staging();
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { stagingDir: dir, frozen: true });
    try {
      stepUntil(plane, 30);
      stagePolicy(dir, { name: 'flipper', code: flipper(), candidateId: 1 });
      stepUntil(plane, 120);
      expect(plane.events).toEqual([]);
      expect(plane.status().deployed.name).toBe('static-4p5d');
      expect(readdirSync(dir)).toHaveLength(1);
    } finally {
      plane.dispose();
    }
  });
});
