import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSnapshot, parseSchedCost } from '../../../src/evaluate/index.js';
import { MECHANICS_PRESETS, parseSplit } from '../../../src/sim/index.js';
import { EvaluatorPool } from '../../../src/evolve/pool/index.js';
import { parseQueueAddress, QueueEvaluator, SETUP_PREFIX } from '../../../src/evolve/queue/index.js';
import { cleanUp, ensureBuilt, queueName, startWorker, type Proc } from './helpers.js';

const PORT = 6379;
const name = queueName('evaluator');
const url = `redis://127.0.0.1:${PORT}/${name}`;
const procs: Proc[] = [];
const redis = new Redis({ host: '127.0.0.1', port: PORT, maxRetriesPerRequest: null });

beforeAll(ensureBuilt, 120_000);
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await cleanUp(PORT, name);
  redis.disconnect();
});

const setup = {
  snapshot: buildSnapshot({ workload: 'cc', agents: 8, roles: parseSplit('4P5D', 9), nodeKinds: Array(9).fill('gb300'), mechanics: MECHANICS_PRESETS['evolving-infra'], warmupMinutes: 0.5, minutes: 1, seed: 1 }),
  schedCost: parseSchedCost('counted'),
  sandbox: { cpuLimitMs: 1000 },
  wallLimitMs: 30_000,
};
const task = { candidateId: 1, name: 'static', code: readFileSync(resolve('seeds/static-4p5d.js'), 'utf8') };

describe('QueueEvaluator', () => {
  it('answers as the local pool does; a job that cannot run fails once (unrecoverable), and is given its attempts again when sent anew', async () => {
    const pool = new EvaluatorPool({ ...setup, threads: 1 });
    const local = await pool.evaluate(task);
    await pool.close();
    const warm = await startWorker(url);
    procs.push(warm);

    const first = await QueueEvaluator.open({ ...setup, address: parseQueueAddress(url, 'test'), threads: 1, timeoutMs: 60_000 });
    try {
      const answer = await first.evaluate(task);
      expect(answer.ok && local.ok).toBe(true);
      if (answer.ok && local.ok) expect(answer.evaluation).toEqual(local.evaluation);
      // The run's setup vanishes (e.g. evicted) and a worker that never held it takes the next job:
      // the job fails at once, without retries, and the run sees a crash.
      warm.child.kill('SIGTERM');
      expect(await warm.exited).toBe(0);
      await redis.del(SETUP_PREFIX + first.setupSha);
      procs.push(await startWorker(url));
      const other = { ...task, name: 'static again' };
      const failed = await first.evaluate(other);
      expect(failed).toMatchObject({ ok: false, kind: 'crash' });
      expect(failed.ok ? '' : failed.message).toMatch(/failed after 1 attempts: the run's setup .* is not in Redis/);

      // A coordinator that sends the same job again (a resumed run) uploads the setup and retries the failed job.
      const second = await QueueEvaluator.open({ ...setup, address: parseQueueAddress(url, 'test'), threads: 1, timeoutMs: 60_000 });
      try {
        const again = await second.evaluate(other);
        expect(again.ok).toBe(true);
        if (again.ok && local.ok) expect(again.evaluation).toEqual({ ...local.evaluation, policy: other.name });
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
