import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane, type CycleOutcome } from '../../src/controlplane/index.js';
import type { Snapshot } from '../../src/evaluate/index.js';
import { badPolicy, closedPort, ensureBuilt, fakeStager, integrity, query, smallConfig, smallSnapshot, ticker, tmpDir, waitFor } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

/**
 * The control plane failing never stops serving: whatever fails in a cycle,
 * the cycle is recorded as failed with its reason, the loop goes on (after a
 * backoff), and the caller's own loop on the main thread keeps stepping.
 */
describe('control plane failures never stop serving', () => {
  it('LLM endpoint down: every cycle fails fast as an infrastructure failure, the loop retries, the caller keeps stepping', async () => {
    const db = join(tmpDir(), 'serve.db');
    const port = await closedPort();
    const outcomes: CycleOutcome[] = [];
    // The caller's timer, read at each cycle's end: it ran between any two cycles, however long they took.
    const steps = ticker(10);
    const ticksAt: number[] = [];
    const cp = await ControlPlane.open({
      dbPath: db,
      config: smallConfig({ mutator: 'llm', llm: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'test', model: 'nobody', maxRetries: 0, timeoutMs: 2000 } }),
      snapshot: () => smallSnapshot(3),
      deployed: () => ({ ...badPolicy(), candidateId: null }),
      stage: fakeStager().stage,
      onCycle: (o) => {
        outcomes.push(o);
        ticksAt.push(steps.ticks);
      },
    });
    try {
      cp.start();
      await waitFor(() => outcomes.length >= 2);
      await cp.stop();
    } finally {
      await cp.close();
    }
    steps.stop();
    for (const o of outcomes) {
      expect(o.status).toBe('failed');
      expect(o.failure).toEqual({ kind: 'infrastructure', retryable: true });
      expect(o.reason).toMatch(/endpoint.*(ECONNREFUSED|cannot reach)/);
      expect(o.staged).toBe(false);
      // Failed after the first iteration of mutations, not after all of them.
      expect(o.iterations).toBe(1);
    }
    const cycles = query<{ status: string; reason: string }>(db, 'SELECT status, reason FROM cycles ORDER BY id');
    expect(cycles.slice(0, 2).map((c) => c.status)).toEqual(['failed', 'failed']);
    expect(cycles[0]!.reason).toMatch(/ECONNREFUSED|cannot reach/);
    expect(query(db, "SELECT count(*) AS n FROM candidates WHERE failure_kind = 'mutation:endpoint'")[0]).toMatchObject({ n: expect.any(Number) });
    // Up to the outcomes awaited: one more may end at once when stop() interrupts the cycle that followed.
    expect(ticksAt[1]!).toBeGreaterThan(ticksAt[0]!);
    expect(integrity(db)).toBe('ok');
  }, 300_000);

  it('LLM endpoint down in a mix: the structural part carries the cycle on, the failures are noted', async () => {
    const db = join(tmpDir(), 'serve.db');
    const port = await closedPort();
    const cp = await ControlPlane.open({
      dbPath: db,
      config: smallConfig({ iterationsPerCycle: 3, mutator: 'mix:llm=0.5,structural=0.5', llm: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'test', model: 'nobody', maxRetries: 0, timeoutMs: 2000 } }),
      snapshot: () => smallSnapshot(3),
      deployed: () => ({ ...badPolicy(), candidateId: null }),
      stage: fakeStager().stage,
    });
    try {
      const outcome = await cp.runCycle();
      expect(outcome.status, outcome.reason).toBe('finished');
      expect(outcome.iterations).toBe(3);
      expect(outcome.reason).toMatch(/the LLM endpoint failed \d+ mutation/);
      const mutators = query<{ mutator: string; n: number }>(db, "SELECT mutator, count(*) AS n FROM candidates WHERE cycle = 1 AND iteration > 0 GROUP BY mutator ORDER BY mutator");
      expect(mutators.map((m) => m.mutator)).toEqual(['llm', 'structural']);
    } finally {
      await cp.close();
    }
  }, 60_000);

  it('snapshot provider throwing, then every candidate failing, then a good snapshot: failed, failed, finished', async () => {
    const db = join(tmpDir(), 'serve.db');
    const outcomes: CycleOutcome[] = [];
    // The caller's timer, read at each cycle's end: it ran between any two cycles, however long they took.
    const steps = ticker(10);
    const ticksAt: number[] = [];
    let call = 0;
    const snapshot = (): Snapshot => {
      call++;
      if (call === 1) throw new Error('the window holds nothing yet');
      // A node kind no profile knows: the replay throws in every worker, for every candidate.
      if (call === 2) return smallSnapshot(4, { nodeKinds: Array(9).fill('no-such-gpu') });
      return smallSnapshot(4);
    };
    const cp = await ControlPlane.open({
      dbPath: db,
      config: smallConfig({ iterationsPerCycle: 1, threads: 1, batch: 1 }),
      snapshot,
      deployed: () => ({ ...badPolicy(), candidateId: null }),
      stage: fakeStager().stage,
      onCycle: (o) => {
        outcomes.push(o);
        ticksAt.push(steps.ticks);
      },
    });
    try {
      cp.start();
      await waitFor(() => outcomes.length >= 3);
      await cp.stop();
    } finally {
      await cp.close();
    }
    steps.stop();
    expect(outcomes[0]).toMatchObject({ status: 'failed', failure: { kind: 'snapshot', retryable: false } });
    expect(outcomes[0]!.reason).toMatch(/no snapshot: .*holds nothing/);
    expect(outcomes[1]).toMatchObject({ status: 'failed', failure: { kind: 'candidates' }, best: null });
    expect(outcomes[1]!.reason).toMatch(/every starting candidate failed/);
    expect(outcomes[2]!.status, outcomes[2]!.reason).toBe('finished');
    expect(outcomes[2]!.staged).toBe(true);
    const cycles = query<{ status: string; snapshot: string | null; reason: string }>(db, 'SELECT status, snapshot, reason FROM cycles ORDER BY id');
    expect(cycles.slice(0, 3).map((c) => c.status)).toEqual(['failed', 'failed', 'finished']);
    expect(cycles[0]!.snapshot).toBeNull();
    // The failed cycle's candidates are recorded as failed, with why.
    expect(query(db, "SELECT DISTINCT status FROM candidates WHERE cycle = 2")).toEqual([{ status: 'failed' }]);
    // Up to the outcomes awaited: one more may end at once when stop() interrupts the cycle that followed.
    expect(ticksAt[1]!).toBeGreaterThan(ticksAt[0]!);
    expect(ticksAt[2]!).toBeGreaterThan(ticksAt[1]!);
    expect(integrity(db)).toBe('ok');
  }, 300_000);

  it('a stager that throws, a deployed provider that throws: failed cycles, recorded, loop still alive', async () => {
    const db = join(tmpDir(), 'serve.db');
    let deployedCalls = 0;
    const cp = await ControlPlane.open({
      dbPath: db,
      config: smallConfig({ iterationsPerCycle: 0, threads: 1 }),
      snapshot: () => smallSnapshot(5),
      deployed: () => {
        if (++deployedCalls === 1) throw new TypeError('data plane not ready');
        return { ...badPolicy(), candidateId: null };
      },
      stage: () => {
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      },
    });
    try {
      const a = await cp.runCycle();
      expect(a).toMatchObject({ status: 'failed', failure: { kind: 'internal', retryable: false } });
      expect(a.reason).toMatch(/data plane not ready/);
      const b = await cp.runCycle();
      expect(b).toMatchObject({ status: 'failed', failure: { kind: 'infrastructure', retryable: true }, staged: false });
      expect(b.reason).toMatch(/could not stage .*ENOSPC/);
      expect(b.best).not.toBeNull();
      expect(query(db, 'SELECT status, winner FROM cycles ORDER BY id')).toEqual([
        { status: 'failed', winner: null },
        { status: 'failed', winner: null },
      ]);
    } finally {
      await cp.close();
    }
  }, 60_000);
});
