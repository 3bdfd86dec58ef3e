import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, ensureBuilt, lineage, queueName, queueOf, run, SMALL, start, startWorker, tmpDir, type Proc } from './helpers.js';

const procs: Proc[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(ensureBuilt, 120_000);
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  for (const c of cleanups) await c();
});

/** A port nothing listens on (the kernel's pick). */
function sparePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A redis-server of this test's own (the machine's is shared: it is never restarted). Resolves once it answers. */
async function ownRedis(port: number): Promise<void> {
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const spawnFailed = new Promise<never>((_, reject) => server.once('error', (e) => reject(new Error(`redis-server could not be started (the restart test needs it): ${e.message}`))));
  const answering = new Promise<void>((resolve, reject) => {
    const tryPing = () => {
      try {
        if (execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'PONG') return resolve();
      } catch {
        // not listening yet
      }
      if (server.exitCode !== null) return reject(new Error(`redis-server on ${port} exited ${server.exitCode}`));
      setTimeout(tryPing, 50);
    };
    tryPing();
  });
  await Promise.race([answering, spawnFailed]);
}

function stopRedis(port: number): void {
  try {
    execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { stdio: 'ignore' });
  } catch {
    // shutdown closes the connection before answering
  }
}

/** Resolves once the queue holds `n` jobs waiting (the coordinator has sent them). */
async function jobsWaiting(port: number, name: string, n: number): Promise<void> {
  const queue = queueOf(port, name);
  try {
    while ((await queue.getWaitingCount()) < n) await new Promise((r) => setTimeout(r, 20));
  } finally {
    await queue.close();
  }
}

describe('evolve --queue recovery', () => {
  it('Redis restarting mid-run (its data lost): the coordinator waits, reconnects, sends again, and the lineage is the local one', async () => {
    const port = await sparePort();
    await ownRedis(port);
    cleanups.push(async () => stopRedis(port));
    const dir = tmpDir();
    const local = await run(['evolve', ...SMALL, '--iterations', '3', '--db', join(dir, 'local.db')]);
    expect(local.code, local.stderr).toBe(0);

    const name = queueName('restart');
    const url = `redis://127.0.0.1:${port}/${name}`;
    // Iteration 0 and 1 committed through the queue.
    let worker = await startWorker(url);
    procs.push(worker);
    const first = await run(['evolve', ...SMALL, '--iterations', '1', '--queue', url, '--queue-timeout', '120', '--db', join(dir, 'queued.db')]);
    expect(first.code, first.stderr).toBe(0);
    const committed = lineage(join(dir, 'queued.db'));
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);

    // The resumed coordinator sends iteration 2 and waits (no worker); then Redis restarts empty.
    const coordinator = start(['evolve', ...SMALL, '--resume', '--iterations', '3', '--queue', url, '--queue-timeout', '120', '--db', join(dir, 'queued.db')]);
    procs.push(coordinator);
    await jobsWaiting(port, name, 1);
    stopRedis(port);
    await ownRedis(port);
    worker = await startWorker(url);
    procs.push(worker);
    expect(await coordinator.exited, coordinator.stderr).toBe(0);
    const after = lineage(join(dir, 'queued.db')) as unknown[][];
    // Nothing committed before the restart is lost or changed, and the run goes on as the local one did.
    for (const row of (committed as unknown[][])[0]!) expect(after[0]).toContainEqual(row);
    expect(after).toEqual(lineage(join(dir, 'local.db')));
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  it('coordinator SIGKILLed with jobs out: --resume sends them again, answered jobs are reused, nothing is committed twice', async () => {
    const port = 6379;
    const dir = tmpDir();
    const local = await run(['evolve', ...SMALL, '--iterations', '3', '--db', join(dir, 'local.db')]);
    expect(local.code, local.stderr).toBe(0);
    const name = queueName('resume');
    cleanups.push(() => cleanUp(port, name));
    const url = `redis://127.0.0.1:${port}/${name}`;
    let worker = await startWorker(url);
    procs.push(worker);
    const first = await run(['evolve', ...SMALL, '--iterations', '1', '--queue', url, '--queue-timeout', '120', '--db', join(dir, 'queued.db')]);
    expect(first.code, first.stderr).toBe(0);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);

    // Iteration 2's jobs are out, no worker yet: the coordinator dies without warning.
    const doomed = start(['evolve', ...SMALL, '--resume', '--iterations', '3', '--queue', url, '--queue-timeout', '120', '--db', join(dir, 'queued.db')]);
    procs.push(doomed);
    await jobsWaiting(port, name, 1);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const queue = queueOf(port, name);
    try {
      const orphans = (await queue.getJobs(['waiting'])).map((j) => j.id);
      expect(orphans.length).toBeGreaterThan(0);
      worker = await startWorker(url);
      procs.push(worker);
      const resumed = await run(['evolve', ...SMALL, '--resume', '--iterations', '3', '--queue', url, '--queue-timeout', '120', '--db', join(dir, 'queued.db')]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(lineage(join(dir, 'queued.db'))).toEqual(lineage(join(dir, 'local.db')));
      // The orphaned jobs were the resumed run's own (same content, same id): each evaluated once.
      for (const id of orphans) {
        const job = await queue.getJob(id!);
        expect(await job!.getState()).toBe('completed');
        expect(job!.attemptsStarted ?? job!.attemptsMade).toBe(1);
      }
    } finally {
      await queue.close();
    }
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
