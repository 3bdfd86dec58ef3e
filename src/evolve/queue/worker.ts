import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { hostname } from 'node:os';
import { EvaluatorPool } from '../pool/index.js';
import { connectionOf, type QueueAddress } from './address.js';
import { encodeAnswer, getSetup, type JobData } from './payload.js';

export interface QueueWorkerOptions {
  address: QueueAddress;
  /** Jobs evaluated at once: one pool thread each. */
  concurrency: number;
  /** BullMQ lock: a worker that stops renewing it (killed) loses its job to the stalled-job check after this long. */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs (of any worker). */
  stalledIntervalMs?: number;
  onJob?: (event: { id: string; state: 'active' | 'done' | 'retry'; note?: string }) => void;
}

/** Pools kept for recent setups (runs); one is started per setup the first time a job needs it. */
const KEPT_SETUPS = 2;

/**
 * Takes evaluation jobs from a BullMQ queue and evaluates each exactly as a
 * local run does: in an EvaluatorPool (the same worker threads, sandbox,
 * backstop and tune task), started once per run's setup. Evaluations run off
 * the main thread, so the lock on each job is renewed while it runs; a killed
 * worker stops renewing it and BullMQ's stalled-job check hands the job on.
 */
export class QueueWorker {
  private readonly worker: Worker<JobData, string>;
  private readonly pools = new Map<string, { pool: Promise<EvaluatorPool>; active: number }>();

  constructor(private readonly options: QueueWorkerOptions) {
    this.worker = new Worker<JobData, string>(options.address.name, (job) => this.process(job), {
      connection: connectionOf(options.address),
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      // A job whose worker dies twice is failed (to the coordinator: a crash), not handed round for ever.
      maxStalledCount: 2,
      autorun: false,
      // Shown by getWorkers and kept on each job (processedBy): which machine and process evaluated it.
      name: `${hostname()}:${process.pid}`,
    });
    this.worker.on('error', () => undefined);
  }

  /** Resolves when the worker has closed (see close). */
  run(): Promise<void> {
    return this.worker.run();
  }

  waitUntilReady(): Promise<unknown> {
    return this.worker.waitUntilReady();
  }

  /** Lets the jobs in progress finish (their answers are sent), takes no more, then stops the pools. */
  async close(): Promise<void> {
    await this.worker.close();
    await Promise.all([...this.pools.values()].map(async (p) => (await p.pool).close()));
    this.pools.clear();
  }

  private async process(job: Job<JobData, string>): Promise<string> {
    const { setup, task } = job.data;
    this.options.onJob?.({ id: job.id!, state: 'active' });
    const entry = await this.poolFor(setup);
    entry.active++;
    try {
      const pool = await entry.pool;
      const answer = task.kind === 'tune' ? await pool.tune(task.request) : await pool.evaluate(task);
      // A crash is ours, not the candidate's: thrown, so BullMQ retries it (attempts, backoff).
      // A timeout or a candidate's failure is an answer like any other and is never retried.
      if (!answer.ok && 'kind' in answer && answer.kind === 'crash') {
        this.options.onJob?.({ id: job.id!, state: 'retry', note: answer.message });
        throw new Error(answer.message);
      }
      this.options.onJob?.({ id: job.id!, state: 'done' });
      return encodeAnswer(answer);
    } finally {
      entry.active--;
    }
  }

  private async poolFor(sha: string): Promise<{ pool: Promise<EvaluatorPool>; active: number }> {
    const known = this.pools.get(sha);
    if (known) return known;
    const setup = await getSetup((await this.worker.client) as unknown as Redis, sha);
    // Without its setup the job can never run anywhere: failing it at once tells the coordinator.
    if (!setup) throw new UnrecoverableError(`the run's setup ${sha} is not in Redis (the coordinator uploads it when it starts)`);
    const again = this.pools.get(sha);
    if (again) return again;
    const entry = { pool: EvaluatorPool.open({ ...setup, threads: this.options.concurrency }), active: 0 };
    this.pools.set(sha, entry);
    this.retireIdle(sha);
    return entry;
  }

  /** Closes the oldest idle pools past KEPT_SETUPS (each holds its run's snapshots). */
  private retireIdle(keep: string): void {
    for (const [sha, entry] of this.pools) {
      if (this.pools.size <= KEPT_SETUPS) return;
      if (entry.active > 0 || sha === keep) continue;
      this.pools.delete(sha);
      void entry.pool.then((p) => p.close());
    }
  }
}
