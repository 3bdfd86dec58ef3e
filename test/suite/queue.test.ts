import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Job, QueueEvents } from 'bullmq';
import { beforeAll, describe, expect, it } from 'vitest';
import { machineQueues, ensureBuilt, queueName, queueOf, start, startWorker, tmpDir } from '../evolve/queue/helpers.js';

/** suite --queue against the machine's Redis (127.0.0.1:6379); every test has a queue of its own and removes it. */
const { port: PORT, url, procs } = machineQueues();

/** A CLI process, killed at the end if a test left it running (a coordinator must not add jobs after the clean-up). */
async function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = start(args);
  procs.push(p);
  const code = await p.exited;
  return { code, stdout: p.stdout, stderr: p.stderr };
}

beforeAll(ensureBuilt, 120_000);

/** A shortened scenario (as in suite-cli.test.ts): cc on 4 nodes, 2 + 12 minutes. */
function tinyScenario(dir: string): string {
  const file = join(dir, 'tiny-cc.json');
  writeFileSync(
    file,
    JSON.stringify({ name: 'tiny-cc', note: 'a shortened cc run for the suite queue tests', workload: { preset: 'cc', agents: 30 }, cluster: { nodes: 4 }, split: '2P2D', warmupMinutes: 2, minutes: 12, seed: 1 }),
  );
  return file;
}

/** static-4p5d whose first three calls burn more counted CPU than a call may: three timeouts, the same on any machine. */
function slowPolicy(dir: string): string {
  const src = readFileSync(resolve('seeds/static-4p5d.js'), 'utf8');
  const slow = src.replace(
    /^function shouldReschedule\(ctx\) \{/m,
    'let slowCalls = 0;\nfunction shouldReschedule(ctx) {\n  if (slowCalls++ < 3) {\n    var spin = 0;\n    for (var i = 0; i < 40000000; i++) spin += i % 7;\n    if (spin < 0) return true;\n  }',
  );
  if (slow === src) throw new Error('static-4p5d.js changed: the slow policy fixture needs a new anchor');
  const file = join(dir, 'slow.js');
  writeFileSync(file, slow);
  return file;
}

describe('suite --queue', () => {
  it('two workers print the same JSON and table as the local pool; a policy over its CPU limit is a result (not retried)', async () => {
    const dir = tmpDir();
    const scenario = tinyScenario(dir);
    const slow = slowPolicy(dir);
    const args = ['suite', '--scenarios', scenario, '--policies', 'seeds/greedy.js', slow, '--no-cache', '--threads', '2'];
    const local = await run([...args, '--json']);
    expect(local.code, local.stderr).toBe(0);
    const localTable = await run(args);
    expect(localTable.code, localTable.stderr).toBe(0);

    const name = queueName('suite');
    const workers = [await startWorker(url(name)), await startWorker(url(name))];
    procs.push(...workers);
    const queued = await run([...args, '--json', '--queue', url(name), '--queue-timeout', '120']);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toBe(local.stdout);
    const report = JSON.parse(queued.stdout);
    const slowRow = report.scenarios[0].policies.find((p: { policy: string }) => p.policy === 'slow');
    expect(slowRow.failures).toBe(3);
    // The table from answers already in the queue (same content, same job ids): the same table too.
    const queuedTable = await run([...args, '--queue', url(name), '--queue-timeout', '120']);
    expect(queuedTable.code, queuedTable.stderr).toBe(0);
    expect(queuedTable.stdout).toBe(localTable.stdout);

    const queue = queueOf(PORT, name);
    try {
      const jobs = await queue.getJobs(['completed', 'failed']);
      // Every run went through the queue as a suite job: the oracle's static runs and the two policies.
      expect(jobs.every((j) => j.name === 'suite' && j.finishedOn !== undefined && j.failedReason === undefined)).toBe(true);
      expect(jobs.filter((j) => j.data.task.kind === 'policy')).toHaveLength(2);
      expect(jobs.filter((j) => j.data.task.kind === 'static')).toHaveLength(report.scenarios[0].oracle.candidates);
      // The timing-out policy was answered on its first attempt: a result, not a worker failure.
      expect(jobs.map((j) => j.attemptsMade)).toEqual(jobs.map(() => 1));
      // One snapshot for the run: every job names the same blob.
      expect(new Set(jobs.map((j) => j.data.snapshot)).size).toBe(1);
      expect(new Set(jobs.map((j) => j.processedBy)).size).toBe(2);
    } finally {
      await queue.close();
    }
    for (const w of workers) w.child.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
  }, 300_000);

  it('a worker killed mid-job: the stalled job goes to another worker, the JSON is the local one', async () => {
    const dir = tmpDir();
    const args = ['suite', '--scenarios', tinyScenario(dir), '--policies', 'seeds/greedy.js', slowPolicy(dir), '--no-cache', '--threads', '2', '--json'];
    const local = await run(args);
    expect(local.code, local.stderr).toBe(0);

    const name = queueName('suite-kill');
    const events = new QueueEvents(name, { connection: { host: '127.0.0.1', port: PORT } });
    await events.waitUntilReady();
    const queue = queueOf(PORT, name);
    // The slow policy's run: the longest job, the one the doomed worker dies in.
    const slowActive = new Promise<string>((resolve) =>
      events.on('active', async ({ jobId }) => {
        const job = await Job.fromId(queue, jobId);
        if (String(job?.data.task.policy?.source ?? '').includes('var spin')) resolve(jobId);
      }),
    );
    const stalled = new Set<string>();
    events.on('stalled', ({ jobId }) => stalled.add(jobId));
    try {
      const doomed = await startWorker(url(name), ['--lock-ms', '1000']);
      procs.push(doomed);
      const coordinator = start([...args, '--queue', url(name), '--queue-timeout', '120']);
      procs.push(coordinator);
      const slowId = await slowActive;
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      const rescuer = await startWorker(url(name), ['--stalled-ms', '1000']);
      procs.push(rescuer);
      expect(await coordinator.exited, coordinator.stderr).toBe(0);
      expect(coordinator.stdout).toBe(local.stdout);
      expect(stalled.has(slowId)).toBe(true);
      const job = await Job.fromId(queue, slowId);
      expect(await job!.getState()).toBe('completed');
      rescuer.child.kill('SIGTERM');
      expect(await rescuer.exited).toBe(0);
    } finally {
      await events.close();
      await queue.close();
    }
  }, 300_000);

  it('no worker connected: says so, then fails after --queue-timeout with one line (exit 1, as evolve)', async () => {
    const dir = tmpDir();
    const out = await run(['suite', '--scenarios', tinyScenario(dir), '--policies', 'seeds/greedy.js', '--no-cache', '--queue', url(queueName('suite-none')), '--queue-timeout', '1']);
    expect(out.code).toBe(1);
    const lines = out.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^suite: no worker connected to redis:\/\/127\.0\.0\.1:6379\/test-suite-none-.*; waiting up to 1 s \(--queue-timeout\)$/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(/no worker took jobs from redis:\/\/127\.0\.0\.1:6379\/test-suite-none-.* \(--queue-timeout\); start one with: autopoiesis worker/);
  }, 60_000);

  it('a bad --queue URL is refused with one line, exit 2', async () => {
    const out = await run(['suite', '--scenarios', 'steady-cc', '--queue', 'http://x/y']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/--queue.*only redis:\/\/ URLs/);
  });
});

