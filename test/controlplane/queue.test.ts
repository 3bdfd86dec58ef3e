import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane, type CycleOutcome, type DeployedPolicy } from '../../src/controlplane/index.js';
import { parseQueueAddress, QueueEvaluator } from '../../src/evolve/queue/index.js';
import type { BackendFactory } from '../../src/evolve/engine/index.js';
import { machineQueues, ensureBuilt as ensureWorkerBuilt, queueName, queueOf, run, startWorker } from '../evolve/queue/helpers.js';
import { badPolicy, ensureBuilt, fakeStager, query, smallConfig, smallSnapshot, tmpDir } from './helpers.js';

/** The control plane (serve --queue) against the machine's Redis (127.0.0.1:6379), on queues of this file's own, removed at the end. */
const { port: PORT, url, procs } = machineQueues();

beforeAll(() => {
  ensureBuilt();
  ensureWorkerBuilt();
}, 120_000);

function queueBackend(name: string, timeoutMs: number): BackendFactory {
  const address = parseQueueAddress(url(name), '--queue');
  return (setup) => QueueEvaluator.open({ ...setup, address, threads: setup.threads ?? 2, timeoutMs });
}

/** One cycle of a new serve run; resolves once the cycle is committed (its row and candidates are in the database). */
async function oneCycle(db: string, backend?: BackendFactory): Promise<CycleOutcome> {
  const bad = badPolicy();
  let deployed: DeployedPolicy = { ...bad, candidateId: null };
  // No time limit that a loaded machine could reach: the cycle ends after its iterations, the same ones either way.
  const cp = await ControlPlane.open({ dbPath: db, config: smallConfig({ cycleMaxMinutes: 60 }), snapshot: () => smallSnapshot(1), deployed: () => deployed, stage: fakeStager().stage, clock: () => 600, backend });
  try {
    deployed = { ...bad, candidateId: cp.registerPolicy(bad) };
    cp.recordDeployment({ candidateId: deployed.candidateId!, at: 0 });
    return await cp.runCycle();
  } finally {
    await cp.close('finished');
  }
}

const CANDIDATES = 'SELECT id, cycle, iteration, mutator, code_hash, status, failure_kind, fitness, metrics FROM candidates ORDER BY id';

describe('control plane --queue', () => {
  it("a cycle's candidates evaluated by a queue worker: the same cycle and candidates as the local pool", async () => {
    const dir = tmpDir();
    const local = await oneCycle(join(dir, 'local.db'));
    expect(local.status, local.reason).toBe('finished');

    const name = queueName('serve');
    const worker = await startWorker(url(name));
    procs.push(worker);
    const queued = await oneCycle(join(dir, 'queued.db'), queueBackend(name, 120_000));
    expect(queued.status, queued.reason).toBe('finished');
    const { wallSeconds: _a, ...a } = local;
    const { wallSeconds: _b, ...b } = queued;
    expect(b).toEqual(a);
    expect(query(join(dir, 'queued.db'), CANDIDATES)).toEqual(query(join(dir, 'local.db'), CANDIDATES));
    expect(query(join(dir, 'queued.db'), 'SELECT status FROM cycles')).toEqual([{ status: 'finished' }]);

    // The evaluations went through the queue, to this worker.
    const queue = queueOf(PORT, name);
    try {
      const jobs = await queue.getJobs(['completed']);
      expect(jobs.length).toBeGreaterThan(0);
      expect(jobs.every((j) => j.name === 'evaluate' || j.name === 'tune')).toBe(true);
      expect(new Set(jobs.map((j) => j.processedBy))).toEqual(new Set([expect.stringMatching(new RegExp(`:${worker.child.pid}$`))]));
    } finally {
      await queue.close();
    }
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 300_000);

  it('no worker connected: the cycle fails as an infrastructure failure with the queue-timeout line', async () => {
    const dir = tmpDir();
    const outcome = await oneCycle(join(dir, 'none.db'), queueBackend(queueName('serve-none'), 1_000));
    expect(outcome.status).toBe('failed');
    // Retried by the loop after its back-off, as any infrastructure failure (serve goes on serving meanwhile).
    expect(outcome.failure).toEqual({ kind: 'infrastructure', retryable: true });
    expect(outcome.reason).toMatch(/no worker took jobs from redis:\/\/127\.0\.0\.1:6379\/test-serve-none-\S+ for \d+ s \(--queue-timeout\)/);
    expect(query(join(dir, 'none.db'), 'SELECT status FROM cycles')).toEqual([{ status: 'failed' }]);
  }, 60_000);

  it('serve --queue with a bad URL: one line, exit 2, no database', async () => {
    const db = join(tmpDir(), 'bad.db');
    const out = await run(['serve', '--workload', 'cc', '--db', db, '--queue', 'redis://127.0.0.1:6379/bad name']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/--queue.*queue name "bad name" must be/);
    expect(existsSync(db)).toBe(false);
  });
});
