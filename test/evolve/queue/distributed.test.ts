import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Job, QueueEvents } from 'bullmq';
import { beforeAll, describe, expect, it } from 'vitest';
import { machineQueues, countCandidates, ensureBuilt, lineage, queueName, queueOf, run, slowSeeds, SMALL, start, startWorker, tmpDir } from './helpers.js';

/** Against the machine's Redis (127.0.0.1:6379); every test has a queue of its own and removes it. */
const { port: PORT, url, procs } = machineQueues();

beforeAll(ensureBuilt, 120_000);

describe('evolve --queue', () => {
  it('two workers write the same lineage as the local pool (evaluate and tune jobs), each candidate once; SIGTERM lets a worker exit 0', async () => {
    const dir = tmpDir();
    const args = [...SMALL, '--iterations', '3'];
    const local = await run(['evolve', ...args, '--db', join(dir, 'local.db')]);
    expect(local.code, local.stderr).toBe(0);
    const name = queueName('two');
    const workers = [await startWorker(url(name)), await startWorker(url(name))];
    procs.push(...workers);
    const queued = await run(['evolve', ...args, '--queue', url(name), '--queue-timeout', '120', '--db', join(dir, 'queued.db')]);
    expect(queued.code, queued.stderr).toBe(0);
    expect(lineage(join(dir, 'queued.db'))).toEqual(lineage(join(dir, 'local.db')));
    const counts = countCandidates(join(dir, 'queued.db'));
    expect(counts.n).toBe(counts.distinct);
    // Both workers took jobs: the answers came back in whatever order they finished.
    const queue = queueOf(PORT, name);
    try {
      const jobs = await queue.getJobs(['completed']);
      expect(jobs.length).toBeGreaterThan(0);
      expect(new Set(jobs.map((j) => j.processedBy)).size).toBe(2);
      // The default mix's tune mutations ran as queue jobs too (one job per tuning run).
      expect(jobs.some((j) => j.name === 'tune')).toBe(true);
    } finally {
      await queue.close();
    }
    for (const w of workers) w.child.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
  });

  it('a worker killed mid-job: the stalled job goes to another worker and appears once in the lineage', async () => {
    const dir = tmpDir();
    const seeds = slowSeeds(true);
    const args = [...SMALL, '--seeds', seeds, '--iterations', '0'];
    const local = await run(['evolve', ...args, '--db', join(dir, 'local.db')]);
    expect(local.code, local.stderr).toBe(0);

    const name = queueName('kill');
    const events = new QueueEvents(name, { connection: { host: '127.0.0.1', port: PORT } });
    await events.waitUntilReady();
    const queue = queueOf(PORT, name);
    const slowActive = new Promise<string>((resolve) =>
      events.on('active', async ({ jobId }) => {
        const job = await Job.fromId(queue, jobId);
        if (String(job?.data.task.code ?? '').includes('var spin')) resolve(jobId);
      }),
    );
    const stalled = new Set<string>();
    events.on('stalled', ({ jobId }) => stalled.add(jobId));
    try {
      // A short lock for the worker that dies, a frequent stalled check for the one that takes over: the handover is quick.
      const doomed = await startWorker(url(name), ['--lock-ms', '1000']);
      procs.push(doomed);
      const coordinator = start(['evolve', ...args, '--queue', url(name), '--queue-timeout', '120', '--db', join(dir, 'queued.db')]);
      procs.push(coordinator);
      const slowId = await slowActive;
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      const rescuer = await startWorker(url(name), ['--stalled-ms', '1000']);
      procs.push(rescuer);
      expect(await coordinator.exited, coordinator.stderr).toBe(0);
      expect(stalled.has(slowId)).toBe(true);
      const job = await Job.fromId(queue, slowId);
      expect(await job!.getState()).toBe('completed');
      expect(lineage(join(dir, 'queued.db'))).toEqual(lineage(join(dir, 'local.db')));
      expect(countCandidates(join(dir, 'queued.db'))).toEqual({ n: 2, distinct: 2 });
      rescuer.child.kill('SIGTERM');
      expect(await rescuer.exited).toBe(0);
    } finally {
      await events.close();
      await queue.close();
    }
  });

  it('SIGTERM mid-job: the worker finishes the job in progress, sends its answer, and exits 0', async () => {
    const dir = tmpDir();
    const name = queueName('term');
    const events = new QueueEvents(name, { connection: { host: '127.0.0.1', port: PORT } });
    await events.waitUntilReady();
    const queue = queueOf(PORT, name);
    const active = new Promise<string>((resolve) => events.on('active', ({ jobId }) => resolve(jobId)));
    try {
      const worker = await startWorker(url(name));
      procs.push(worker);
      const coordinator = start(['evolve', ...SMALL, '--seeds', slowSeeds(false), '--iterations', '0', '--queue', url(name), '--queue-timeout', '120', '--db', join(dir, 'q.db'), '--json']);
      procs.push(coordinator);
      const id = await active;
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.stderr).toBe(0);
      // Finished by that worker before it exited (not left to stall and be taken by another).
      const job = await Job.fromId(queue, id);
      expect(await job!.getState()).toBe('completed');
      expect(job!.attemptsStarted ?? job!.attemptsMade).toBe(1);
      expect(await coordinator.exited, coordinator.stderr).toBe(0);
      expect(JSON.parse(coordinator.stdout).evaluated).toBe(1);
    } finally {
      await events.close();
      await queue.close();
    }
  });

  it('a candidate past its wall limit is a failed candidate (timeout), answered once and not retried', async () => {
    const dir = tmpDir();
    const name = queueName('timeout');
    const worker = await startWorker(url(name));
    procs.push(worker);
    const r = await run(['evolve', ...SMALL, '--seeds', slowSeeds(false), '--iterations', '0', '--candidate-wall-ms', '100', '--queue', url(name), '--queue-timeout', '120', '--db', join(dir, 'queued.db'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).failedByKind).toEqual({ timeout: 1 });
    const [candidates] = lineage(join(dir, 'queued.db')) as [{ status: string; failure_kind: string }[]];
    expect(candidates.map((c) => [c.status, c.failure_kind])).toEqual([['failed', 'timeout']]);
    const queue = queueOf(PORT, name);
    try {
      const jobs = await queue.getJobs(['completed', 'failed']);
      expect(jobs.map((j) => [j.finishedOn !== undefined, j.failedReason ?? null, j.attemptsStarted ?? j.attemptsMade])).toEqual([[true, null, 1]]);
    } finally {
      await queue.close();
    }
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  it('no worker connected: the coordinator says so, then fails with one line and exit 1 after --queue-timeout', async () => {
    const dir = tmpDir();
    const name = queueName('none');
    const r = await run(['evolve', ...SMALL, '--iterations', '0', '--queue', url(name), '--queue-timeout', '1', '--db', join(dir, 'q.db')]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/no worker connected to redis:\/\/127\.0\.0\.1:6379\/test-none-.*; waiting up to 1 s/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(/^autopoiesis: no worker took jobs from .* \(--queue-timeout\)/);
    const bad = await run(['evolve', '--queue', 'http://x/y', '--db', join(dir, 'bad.db')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'bad.db'))).toBe(false);
    const badWorker = await run(['worker', '--redis', 'redis://127.0.0.1:6379/no spaces']);
    expect(badWorker.code).toBe(2);
    expect(badWorker.stderr.trim().split('\n')).toHaveLength(1);
  });
});
