import type { Job } from 'bullmq';
import type { BlobSource, JobHandler } from '../../queue/index.js';
import { EvaluatorPool } from '../pool/index.js';
import { decodeSetup, encodeAnswer, type JobData } from './payload.js';

/** Pools kept for recent setups (runs); one is started per setup the first time a job needs it. */
const KEPT_SETUPS = 2;

/**
 * The worker's side of evolve's jobs ('evaluate', 'tune'): each is evaluated
 * exactly as a local run does, in an EvaluatorPool (the same worker threads,
 * sandbox, backstop and tune task) started once per run's setup, with
 * `concurrency` threads.
 */
export function evolveJobHandler(concurrency: number): JobHandler {
  const pools = new Map<string, { pool: Promise<EvaluatorPool>; active: number }>();

  async function poolFor(sha: string, blobs: BlobSource): Promise<{ pool: Promise<EvaluatorPool>; active: number }> {
    const known = pools.get(sha);
    if (known) return known;
    const setup = decodeSetup(await blobs.get(sha, 'setup'));
    const again = pools.get(sha);
    if (again) return again;
    const entry = { pool: EvaluatorPool.open({ ...setup, threads: concurrency }), active: 0 };
    pools.set(sha, entry);
    retireIdle(sha);
    return entry;
  }

  /** Closes the oldest idle pools past KEPT_SETUPS (each holds its run's snapshots). */
  function retireIdle(keep: string): void {
    for (const [sha, entry] of pools) {
      if (pools.size <= KEPT_SETUPS) return;
      if (entry.active > 0 || sha === keep) continue;
      pools.delete(sha);
      void entry.pool.then((p) => p.close());
    }
  }

  return {
    names: ['evaluate', 'tune'],
    async process(job: Job, blobs: BlobSource): Promise<string> {
      const { setup, task } = job.data as JobData;
      const entry = await poolFor(setup, blobs);
      entry.active++;
      try {
        const pool = await entry.pool;
        const answer = task.kind === 'tune' ? await pool.tune(task.request) : await pool.evaluate(task);
        // A crash is ours, not the candidate's: thrown, so BullMQ retries it (attempts, backoff).
        // A timeout or a candidate's failure is an answer like any other and is never retried.
        if (!answer.ok && 'kind' in answer && answer.kind === 'crash') throw new Error(answer.message);
        return encodeAnswer(answer);
      } finally {
        entry.active--;
      }
    },
    async close(): Promise<void> {
      await Promise.all([...pools.values()].map(async (p) => (await p.pool).close()));
      pools.clear();
    },
  };
}
