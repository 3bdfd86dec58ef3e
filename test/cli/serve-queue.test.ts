import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { queueBackend } from '../../src/cli/evolve-queue.js';
import { bufferIO } from '../../src/cli/io.js';
import { runServe } from '../../src/cli/serve-session.js';
import { ServeSettingsSchema } from '../../src/cli/serve-settings.js';
import { machineQueues, ensureBuilt, queueName, queueOf, startWorker, tmpDir } from '../evolve/queue/helpers.js';
import { gatedClock } from './gated-clock.js';

/** serve --queue against the machine's Redis (127.0.0.1:6379), on a queue of this test's own, removed at the end. */
const { port: PORT, url, procs } = machineQueues();

beforeAll(ensureBuilt, 120_000);

describe('serve --queue', () => {
  it("the control plane's cycles are evaluated by a queue worker while the data plane serves", async () => {
    const dir = tmpDir();
    const db = join(dir, 'live.db');
    const name = queueName('serve-cli');
    const worker = await startWorker(url(name));
    procs.push(worker);
    // What serve --queue builds (src/cli/serve.ts): the backend and the status note.
    const queue = queueBackend(url(name), 120, bufferIO(), 'serve');
    const notes: string[] = [];
    const gated = gatedClock();
    const report = await runServe({
      dbPath: db,
      resume: false,
      settings: ServeSettingsSchema.parse({
        workload: 'cc', agents: 20, speed: 0, durationMinutes: 6, segmentMinutes: 3, cpuLimitMs: 1000,
        policyName: 'evolving-infra.js', policyCode: readFileSync(join(process.cwd(), 'seeds', 'evolving-infra.js'), 'utf8'),
      }),
      // Cycles end by their iteration count (the time limit is a backstop far away).
      controlPlane: { windowMinutes: 2, warmupMinutes: 1, cycleMaxMinutes: 30, iterationsPerCycle: 1, threads: 1, batch: 2, islands: 2, cpuLimitMs: 1000 },
      stagingDir: join(dir, 'staging'),
      clock: gated.clock,
      // Once cycles can run (300 s recorded: warm-up, window and the validation window before it), the data plane waits at 320 s until one has been committed.
      onStatus: (s) => {
        notes.push(queue.note());
        gated.holdOnce(s.simSeconds >= 320, /^cycle \d+ (finished|timed_out) at /);
      },
      log: gated.log,
      backend: queue.backend,
    });
    expect(report.droppedRequests).toBe(0);
    expect(report.cyclesByStatus.finished ?? 0).toBeGreaterThan(0);
    const sqlite = new Database(db, { readonly: true });
    const cycle = sqlite.prepare("SELECT id FROM cycles WHERE status = 'finished' ORDER BY id LIMIT 1").get() as { id: number };
    const evaluated = sqlite.prepare("SELECT count(*) AS n FROM candidates WHERE cycle = ? AND status = 'evaluated'").pluck().get(cycle.id) as number;
    sqlite.close();
    expect(evaluated).toBeGreaterThan(0);
    // Those evaluations were the worker's jobs, and the status line named it.
    const q = queueOf(PORT, name);
    try {
      const jobs = await q.getJobs(['completed']);
      expect(jobs.length).toBeGreaterThan(0);
      expect(new Set(jobs.map((j) => j.processedBy))).toEqual(new Set([expect.stringMatching(new RegExp(`:${worker.child.pid}$`))]));
    } finally {
      await q.close();
    }
    expect(notes).toContain('1 worker');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 300_000);
});
