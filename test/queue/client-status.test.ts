import { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { JobClient, parseQueueAddress, type QueueStatus } from '../../src/queue/index.js';
import { cleanUp, queueName } from '../evolve/queue/helpers.js';

/** The machine's Redis (127.0.0.1:6379), on queues of this file's own, removed at the end. */
const PORT = 6379;
const names: string[] = [];
afterAll(async () => {
  for (const n of names) await cleanUp(PORT, n);
});

/** Opens a client whose sweep never ticks within the test (an hour), so only what open() reports is seen. */
async function openAndListen(name: string): Promise<QueueStatus[]> {
  const seen: QueueStatus[] = [];
  const client = await JobClient.open({ address: parseQueueAddress(`redis://127.0.0.1:${PORT}/${name}`, '--queue'), timeoutMs: 60_000, sweepMs: 3_600_000, onStatus: (s) => seen.push(s) });
  const atOpen = [...seen];
  await client.close();
  return atOpen;
}

describe('JobClient.open', () => {
  it('says who is connected before it returns, not at the first sweep tick (a short run can end before one)', async () => {
    const name = queueName('client-status');
    names.push(name);
    expect(await openAndListen(name)).toEqual([{ workers: 0, pending: 0, waitingMs: 0 }]);
    const worker = new Worker(name, async () => 'ok', { connection: { host: '127.0.0.1', port: PORT, maxRetriesPerRequest: null } });
    try {
      await worker.waitUntilReady();
      expect(await openAndListen(name)).toEqual([{ workers: 1, pending: 0, waitingMs: 0 }]);
    } finally {
      await worker.close();
    }
  });
});
