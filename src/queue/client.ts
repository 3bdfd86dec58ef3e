import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { InfrastructureError } from '../common/errors.js';
import { connectionOf, describeAddress, type QueueAddress } from './address.js';
import { putBlob, type Blob } from './blob.js';

export interface QueueStatus {
  /** Worker connections on the queue at the last look (null: Redis not reachable). */
  workers: number | null;
  /** Jobs sent and not answered yet. */
  pending: number;
  /** Ms since a worker was last seen, while jobs wait (0 when one is connected). */
  waitingMs: number;
}

export interface JobClientOptions {
  address: QueueAddress;
  /** No worker seen this long while jobs wait: every pending job fails with InfrastructureError. */
  timeoutMs: number;
  onStatus?: (status: QueueStatus) => void;
  /** Attempts of a job whose worker failed (crash, lost lock twice); a candidate's own failure is an answer, never retried. */
  attempts?: number;
  /** How often pending jobs and workers are looked at (the catch-up path; answers arrive by events). */
  sweepMs?: number;
}

/** A job that failed on the workers' side (every attempt): an infrastructure failure, not an answer. */
export type CrashAnswer = { ok: false; kind: 'crash'; message: string; wallMs: number };
/** What a job gives back: the worker's return value as it returned it (a string), or a crash. */
export type JobReply = { answer: string } | CrashAnswer;

interface Pending {
  name: string;
  data: unknown;
  blobs: readonly Blob[];
  waiters: { resolve: (r: JobReply) => void; reject: (e: Error) => void }[];
  sent: boolean;
}

/** Finished jobs are kept an hour, so that a resumed coordinator finds what it sent before it died. */
const KEEP = { age: 3600 };

/**
 * The coordinator's side of a BullMQ queue, whatever the jobs compute: a job
 * is sent under a content-addressed id (the same work sent twice, or by a
 * resumed coordinator, is one job), with the blobs it needs stored once.
 * Answers arrive by QueueEvents; a sweep catches up on anything an event did
 * not bring (a Redis restart loses the event stream, and without persistence
 * the jobs and blobs too: those are sent again). No worker seen for
 * `timeoutMs` while jobs wait fails them all.
 */
export class JobClient {
  private readonly pending = new Map<string, Pending>();
  /** Blobs stored (or being stored) by this client: one upload each, however many jobs need it at once. */
  private readonly uploads = new Map<string, Promise<void>>();
  private lastWorkerSeen = Date.now();
  private workers: number | null = null;
  /** When the sweep in progress began (null: none): one that hangs means Redis is not answering. */
  private sweepStarted: number | null = null;
  private closed = false;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly options: JobClientOptions,
  ) {
    // The answer rides on the event: no further round trip (the sweep catches what an event missed).
    this.events.on('completed', ({ jobId, returnvalue }) => (typeof returnvalue === 'string' ? this.answered(jobId, returnvalue) : this.checkLater(jobId)));
    this.events.on('failed', ({ jobId }) => this.checkLater(jobId));
    // Errors are connection losses: ioredis reconnects by itself and the sweep catches up.
    this.events.on('error', () => undefined);
    this.queue.on('error', () => undefined);
    this.timer = setInterval(() => this.tick(), options.sweepMs ?? 1_000);
  }

  /** Connects, stores `blobs` (what every job of the run needs) and takes a first look at the workers. */
  static async open(options: JobClientOptions, blobs: readonly Blob[] = []): Promise<JobClient> {
    const connection = connectionOf(options.address);
    const client = new JobClient(new Queue(options.address.name, { connection }), new QueueEvents(options.address.name, { connection }), options);
    await client.events.waitUntilReady();
    for (const blob of blobs) await client.upload(blob);
    // The first look at the workers before any job waits: a run never starts by saying none is there when some are,
    // and says who is there at once rather than at the first tick (a short run may end before one).
    await client.sweep();
    client.report(Date.now());
    return client;
  }

  /** Sends a job (or joins the one of the same id); `blobs`: what it needs in Redis, stored unless they are there. */
  send(id: string, name: string, data: unknown, blobs: readonly Blob[] = []): Promise<JobReply> {
    if (this.closed) return Promise.reject(new InfrastructureError('the queue client is closed'));
    return new Promise((resolve, reject) => {
      const known = this.pending.get(id);
      if (known) return known.waiters.push({ resolve, reject });
      const entry: Pending = { name, data, blobs, waiters: [{ resolve, reject }], sent: false };
      this.pending.set(id, entry);
      // An answered job of the same content (a resumed run) is taken as it is; check() settles it.
      void this.add(id, entry)
        .then(() => this.check(id))
        .catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    for (const [, p] of this.pending) for (const w of p.waiters) w.reject(new InfrastructureError('the queue client was closed'));
    this.pending.clear();
    await this.events.close();
    await this.queue.close();
  }

  private upload(blob: Blob): Promise<void> {
    const known = this.uploads.get(blob.sha);
    if (known) return known;
    const upload = (async () => putBlob((await this.queue.client) as unknown as Redis, blob))();
    this.uploads.set(blob.sha, upload);
    // A failed upload (Redis going away) is tried again by the next job that needs it.
    upload.catch(() => this.uploads.get(blob.sha) === upload && this.uploads.delete(blob.sha));
    return upload;
  }

  private async add(id: string, entry: Pending): Promise<void> {
    for (const blob of entry.blobs) await this.upload(blob);
    await this.queue.add(entry.name, entry.data, {
      jobId: id,
      attempts: this.options.attempts ?? 3,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: KEEP,
      removeOnFail: KEEP,
    });
  }

  /** Settles a pending job that has an answer; sends it again if Redis lost it. */
  private async check(id: string): Promise<void> {
    const entry = this.pending.get(id);
    if (!entry || this.closed) return;
    // The state first: a job read before it finished would have no answer yet though its state says completed.
    const state = await this.queue.getJobState(id);
    if (state === 'unknown') {
      // Lost with a Redis restart (no persistence): the blobs may be gone too (stored again unless there: putBlob looks first).
      for (const blob of entry.blobs) await putBlob((await this.queue.client) as unknown as Redis, blob);
      await this.add(id, entry);
      return;
    }
    const sent = entry.sent;
    entry.sent = true;
    if (state !== 'completed' && state !== 'failed') return;
    const job = await Job.fromId(this.queue, id);
    if (!job) return;
    // A job that had failed before this coordinator sent it (a resumed run after a crash): it gets its attempts again.
    if (state === 'failed' && !sent) return void (await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }));
    if (state === 'completed') this.settle(id, { answer: job.returnvalue as string });
    else this.settle(id, { ok: false, kind: 'crash', message: `queue job failed after ${job.attemptsMade} attempts: ${job.failedReason}`, wallMs: 0 });
  }

  /** A completed event's return value: the job's answer, as the worker returned it (JSON-encoded by the event, or not). */
  private answered(id: string, returnvalue: string): void {
    if (!this.pending.has(id)) return;
    try {
      this.settle(id, { answer: returnvalue.startsWith('"') ? (JSON.parse(returnvalue) as string) : returnvalue });
    } catch {
      this.checkLater(id);
    }
  }

  /** From an event: a failed look (Redis going away) is left to the next sweep. */
  private checkLater(id: string): void {
    this.check(id).catch(() => undefined);
  }

  private settle(id: string, reply: JobReply): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    for (const w of entry.waiters) w.resolve(reply);
  }

  private tick(): void {
    const now = Date.now();
    const sweepMs = this.options.sweepMs ?? 1_000;
    // Commands wait through a Redis outage (maxRetriesPerRequest: null): a sweep still running means no one can be seen.
    if (this.sweepStarted !== null && now - this.sweepStarted > 2 * sweepMs) this.workers = null;
    const waitingMs = this.report(now);
    if (waitingMs > this.options.timeoutMs) return this.fail(waitingMs);
    if (this.sweepStarted === null) void this.sweep();
  }

  /** Tells onStatus what is known now; returns how long jobs have waited with no worker seen. */
  private report(now: number): number {
    if (this.pending.size === 0 || (this.workers ?? 0) > 0) this.lastWorkerSeen = now;
    const waitingMs = now - this.lastWorkerSeen;
    this.options.onStatus?.({ workers: this.workers, pending: this.pending.size, waitingMs });
    return waitingMs;
  }

  private async sweep(): Promise<void> {
    this.sweepStarted = Date.now();
    try {
      // A reconnect after a restart re-creates nothing by itself: the events resume, the jobs are checked.
      this.workers = (await this.queue.getWorkers()).length;
      for (const id of [...this.pending.keys()]) await this.check(id);
    } catch {
      this.workers = null;
    } finally {
      this.sweepStarted = null;
    }
  }

  private fail(waitingMs: number): void {
    const { address } = this.options;
    const error = new InfrastructureError(
      `no worker took jobs from ${describeAddress(address)} for ${Math.round(waitingMs / 1000)} s (--queue-timeout); start one with: autopoiesis worker --redis redis://${address.host}:${address.port} --queue ${address.name}`,
    );
    for (const [, p] of this.pending) for (const w of p.waiters) w.reject(error);
    this.pending.clear();
  }
}
