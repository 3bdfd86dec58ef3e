import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshotFromStrings, parseSchedCost } from '../../../src/evaluate/index.js';
import { backstopFor, EvaluatorPool, type EvalOutcome } from '../../../src/evolve/pool/index.js';

/**
 * A candidate stuck past its wall-clock budget is rejected by its own worker
 * (the sandbox stops a long call, the evaluator's deadline between calls
 * rejects the candidate): the worker answers `timeout` and goes on, so the
 * backstop never has to terminate a thread holding isolated-vm handles (that
 * can abort the whole process). Driven by outcomes: no timing bounds.
 */
// Small, so that a sound candidate needs a small fraction of its budget even on a loaded machine.
const snapshot = buildSnapshotFromStrings({ workload: 'cc', agents: 4, nodes: 2, split: '1P1D', nodeKinds: 'gb300', mechanics: 'evolving-infra', warmupMinutes: 0.5, minutes: 1.5, seed: 5 });

// Every call burns under the per-call CPU limit (5e7 steps: about a nanosecond each at best); the 24 calls of the snapshot take far longer than the candidate's budget.
const manyCalls = `
let sink = 0;
function shouldReschedule(ctx) { let x = 1; for (let i = 0; i < 5e7; i++) x = (x * 31 + i) % 1000003; sink += x; return false; }
function schedule(ctx) { return { roles: ctx.plan.roles.slice() }; }`;
// One call never returns: the sandbox's wall watchdog (longer than the candidate's whole budget) stops it.
const oneCall = `
function shouldReschedule(ctx) { if (ctx.now < 20) return false; for (;;) {} }
function schedule(ctx) { return { roles: ctx.plan.roles.slice() }; }`;
const good = `
function shouldReschedule(ctx) { return false; }
function schedule(ctx) { return { roles: ctx.plan.roles.slice() }; }`;

// Candidate budget 600 ms (a sound candidate needs a small fraction of it); a sandbox call may run 200 ms of CPU and 800 ms of wall time before it is stopped.
const setup = { snapshot, schedCost: parseSchedCost('zero'), sandbox: { cpuLimitMs: 200, wallLimitMs: 800 }, wallLimitMs: 600 } as const;

let pool: EvaluatorPool;
beforeAll(async () => {
  pool = await EvaluatorPool.open({ ...setup, threads: 2 });
});
afterAll(async () => {
  await pool?.close();
});

const failure = (o: EvalOutcome) => (o.ok ? 'ok' : `${o.kind} after ${Math.round(o.wallMs)} ms: ${o.message}`);

describe('evaluator pool: stuck candidates', () => {
  it('the backstop lies beyond everything a candidate can hold up: its budget and every guarded sandbox step', () => {
    expect(backstopFor(setup, 0)).toBe(600 + 6 * 800);
    expect(pool.backstopMs).toBe(600 + 6 * 800 + 5_000);
  });

  it('20 stuck candidates in a row are each rejected as timeout by their worker, which lives on', async () => {
    const before = pool.workersStarted;
    expect(before).toBe(2);
    const stuck = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? manyCalls : oneCall));
    const outcomes: EvalOutcome[] = [];
    // In a row, two at a time (one per thread), each pair awaited before the next.
    for (let i = 0; i < stuck.length; i += 2) {
      outcomes.push(...(await Promise.all(stuck.slice(i, i + 2).map((code, k) => pool.evaluate({ candidateId: i + k, name: `stuck-${i + k}`, code })))));
    }
    for (const o of outcomes) {
      expect(o.ok, failure(o)).toBe(false);
      if (!o.ok) {
        expect(o.kind, o.message).toBe('timeout');
        expect(o.message).toMatch(/wall-clock budget of 600 ms/);
      }
    }
    // No worker was terminated and replaced: the backstop never fired.
    expect(pool.workersStarted).toBe(before);
    // The same workers still evaluate a sound candidate.
    const after = await Promise.all([0, 1].map((k) => pool.evaluate({ candidateId: 100 + k, name: 'good', code: good })));
    for (const o of after) expect(o.ok, failure(o)).toBe(true);
    expect(pool.workersStarted).toBe(before);
  });

  it('counts a task from when its worker takes it: tasks waiting for the one thread are evaluated, not cut off', async () => {
    // No slack: the backstop is the candidate's budget plus the guarded sandbox steps, far less than the queue's wait.
    const single = await EvaluatorPool.open({ ...setup, threads: 1, backstopMs: 0 });
    try {
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => single.evaluate({ candidateId: i, name: `queued-${i}`, code: i === 5 ? oneCall : good })));
      outcomes.forEach((o, i) => {
        if (i === 5) expect(o.ok ? 'ok' : o.kind).toBe('timeout');
        else expect(o.ok, failure(o)).toBe(true);
      });
      expect(single.workersStarted).toBe(1);
    } finally {
      await single.close();
    }
  });
});
