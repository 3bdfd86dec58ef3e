import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { hostname } from 'node:os';
import { connectionOf, type QueueAddress } from './address.js';
import { getBlob } from './blob.js';

/**
 * One kind of work a worker process takes (evolve's evaluations, the suite's
 * runs): the job names it answers to, and how it answers one. A thrown Error
 * is the worker's failure (BullMQ retries the job); a candidate's own failure
 * is an answer and must be returned, not thrown.
 */
export interface JobHandler {
  names: readonly string[];
  process(job: Job, blobs: BlobSource): Promise<string>;
  /** Stops whatever the handler started (pools), after the last job. */
  close(): Promise<void>;
}

/** How a handler reads the blobs its jobs name (content-addressed, see blob.ts). */
export interface BlobSource {
  /** The bytes; an UnrecoverableError when Redis does not hold them (the job can never run anywhere). */
  get(sha: string, what: string): Promise<Buffer>;
}

export interface QueueWorkerOptions {
  address: QueueAddress;
  /** Jobs processed at once (the handlers size their pools to it). */
  concurrency: number;
  handlers: readonly JobHandler[];
  /** BullMQ lock: a worker that stops renewing it (killed) loses its job to the stalled-job check after this long. */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs (of any worker). */
  stalledIntervalMs?: number;
  onJob?: (event: { id: string; state: 'active' | 'done' | 'retry'; note?: string }) => void;
}

/**
 * Takes jobs from a BullMQ queue and hands each to the handler of its name.
 * Handlers compute off the main thread, so the lock on each job is renewed
 * while it runs; a killed worker stops renewing it and BullMQ's stalled-job
 * check hands the job on.
 */
export class QueueWorker {
  private readonly worker: Worker<unknown, string>;
  private readonly byName = new Map<string, JobHandler>();
  private readonly blobs: BlobSource;

  constructor(private readonly options: QueueWorkerOptions) {
    for (const h of options.handlers) for (const name of h.names) this.byName.set(name, h);
    this.worker = new Worker<unknown, string>(options.address.name, (job) => this.process(job), {
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
    this.blobs = {
      get: async (sha, what) => {
        const bytes = await getBlob((await this.worker.client) as unknown as Redis, sha);
        // Without it the job can never run anywhere: failing it at once tells the coordinator.
        if (!bytes) throw new UnrecoverableError(`the run's ${what} ${sha} is not in Redis (the coordinator uploads it when it starts)`);
        return bytes;
      },
    };
  }

  /** Resolves when the worker has closed (see close). */
  run(): Promise<void> {
    return this.worker.run();
  }

  waitUntilReady(): Promise<unknown> {
    return this.worker.waitUntilReady();
  }

  /** Lets the jobs in progress finish (their answers are sent), takes no more, then stops the handlers. */
  async close(): Promise<void> {
    await this.worker.close();
    await Promise.all(this.options.handlers.map((h) => h.close()));
  }

  private async process(job: Job<unknown, string>): Promise<string> {
    const handler = this.byName.get(job.name);
    if (!handler) throw new UnrecoverableError(`this worker takes no "${job.name}" jobs (it takes ${[...this.byName.keys()].join(', ')}); update it`);
    this.options.onJob?.({ id: job.id!, state: 'active' });
    try {
      const answer = await handler.process(job, this.blobs);
      this.options.onJob?.({ id: job.id!, state: 'done' });
      return answer;
    } catch (error) {
      if (!(error instanceof UnrecoverableError)) this.options.onJob?.({ id: job.id!, state: 'retry', note: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }
}
