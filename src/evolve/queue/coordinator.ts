import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { InfrastructureError } from '../../common/errors.js';
import type { EvalOutcome, EvalTask, WorkerSetup } from '../pool/index.js';
import type { TuneRequest } from '../mutators/tune/request.js';
import type { TuneResult } from '../mutators/tune/run.js';
import { connectionOf, describeAddress, type QueueAddress } from './address.js';
import { decodeAnswer, encodeSetup, jobIdOf, putSetup, type JobAnswer, type JobData, type QueueTask } from './payload.js';

export interface QueueStatus {
  /** Worker connections on the queue at the last look (null: Redis not reachable). */
  workers: number | null;
  /** Jobs sent and not answered yet. */
  pending: number;
  /** Ms since a worker was last seen, while jobs wait (0 when one is connected). */
  waitingMs: number;
}

export interface QueueEvaluatorOptions extends WorkerSetup {
  address: QueueAddress;
  /**
   * Slots per iteration when the run gives no --batch (the engine's `threads`).
   * Not the number of workers: the lineage must not depend on who is connected.
   */
  threads: number;
  /** No worker seen this long while jobs wait: every pending evaluation fails with InfrastructureError. */
  timeoutMs: number;
  onStatus?: (status: QueueStatus) => void;
  /** Attempts of a job whose worker failed (crash, lost lock twice); a candidate's own failure is an answer, never retried. */
  attempts?: number;
  /** How often pending jobs and workers are looked at (the catch-up path; answers arrive by events). */
  sweepMs?: number;
}

type Settle = { resolve: (a: JobAnswer | CrashAnswer) => void; reject: (e: Error) => void };
type CrashAnswer = { ok: false; kind: 'crash'; message: string; wallMs: number };

/** Finished jobs are kept an hour, so that a resumed coordinator finds what it sent before it died. */
const KEEP = { age: 3600 };

/**
 * Sends candidate evaluations to `autopoiesis worker` processes through a
 * BullMQ queue: the same interface as EvaluatorPool (evaluate, tune, threads,
 * close), so the engine takes either. Answers arrive by QueueEvents; a sweep
 * catches up on anything an event did not bring (a Redis restart loses the
 * event stream, and without persistence the jobs too: those are sent again).
 */
export class QueueEvaluator {
  private readonly pending = new Map<string, { task: QueueTask; waiters: Settle[]; sent: boolean }>();
  private readonly sha: string;
  private readonly bytes: Buffer;
  private lastWorkerSeen = Date.now();
  private workers: number | null = null;
  /** When the sweep in progress began (null: none): one that hangs means Redis is not answering. */
  private sweepStarted: number | null = null;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  readonly threads: number;

  private constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly options: QueueEvaluatorOptions,
    setup: WorkerSetup,
  ) {
    this.threads = options.threads;
    ({ sha: this.sha, bytes: this.bytes } = encodeSetup(setup));
    // The answer rides on the event: no further round trip (the sweep catches what an event missed).
    this.events.on('completed', ({ jobId, returnvalue }) => (typeof returnvalue === 'string' ? this.answered(jobId, returnvalue) : this.checkLater(jobId)));
    this.events.on('failed', ({ jobId }) => this.checkLater(jobId));
    // Errors are connection losses: ioredis reconnects by itself and the sweep catches up.
    this.events.on('error', () => undefined);
    this.queue.on('error', () => undefined);
    this.timer = setInterval(() => this.tick(), options.sweepMs ?? 1_000);
  }

  static async open(options: QueueEvaluatorOptions): Promise<QueueEvaluator> {
    const { address, threads: _t, timeoutMs: _o, onStatus: _s, attempts: _a, sweepMs: _w, ...setup } = options;
    const connection = connectionOf(address);
    const queue = new Queue<JobData>(address.name, { connection });
    const events = new QueueEvents(address.name, { connection });
    const evaluator = new QueueEvaluator(queue as Queue, events, options, setup);
    await events.waitUntilReady();
    await evaluator.upload();
    // The first look at the workers before any job waits: a run never starts by saying none is there when some are.
    await evaluator.sweep();
    return evaluator;
  }

  get setupSha(): string {
    return this.sha;
  }

  async evaluate(task: EvalTask): Promise<EvalOutcome> {
    return (await this.send({ ...task, kind: 'evaluate' })) as EvalOutcome;
  }

  async tune(request: TuneRequest): Promise<TuneResult | CrashAnswer> {
    return (await this.send({ kind: 'tune', request })) as TuneResult | CrashAnswer;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    for (const [, p] of this.pending) for (const w of p.waiters) w.reject(new InfrastructureError('the queue evaluator was closed'));
    this.pending.clear();
    await this.events.close();
    await this.queue.close();
  }

  private async upload(): Promise<void> {
    await putSetup((await this.queue.client) as unknown as Redis, this.sha, this.bytes);
  }

  private send(task: QueueTask): Promise<JobAnswer | CrashAnswer> {
    if (this.closed) return Promise.reject(new InfrastructureError('the queue evaluator is closed'));
    const id = jobIdOf(this.sha, task);
    return new Promise((resolve, reject) => {
      const known = this.pending.get(id);
      if (known) return known.waiters.push({ resolve, reject });
      this.pending.set(id, { task, waiters: [{ resolve, reject }], sent: false });
      // An answered job of the same content (a resumed run) is taken as it is; check() settles it.
      void this.add(id, task).then(() => this.check(id)).catch(() => undefined);
    });
  }

  private async add(id: string, task: QueueTask): Promise<void> {
    await this.queue.add(task.kind ?? 'evaluate', { setup: this.sha, task } satisfies JobData, {
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
      // Lost with a Redis restart (no persistence): the setup may be gone too.
      await this.upload();
      await this.add(id, entry.task);
      return;
    }
    const sent = entry.sent;
    entry.sent = true;
    if (state !== 'completed' && state !== 'failed') return;
    const job = await Job.fromId(this.queue, id);
    if (!job) return;
    // A job that had failed before this coordinator sent it (a resumed run after a crash): it gets its attempts again.
    if (state === 'failed' && !sent) return void (await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }));
    if (state === 'completed') this.settle(id, decodeAnswer(job.returnvalue as string));
    else this.settle(id, { ok: false, kind: 'crash', message: `queue job failed after ${job.attemptsMade} attempts: ${job.failedReason}`, wallMs: 0 });
  }

  /** A completed event's return value: the job's answer, as the worker returned it (JSON-encoded by the event, or not). */
  private answered(id: string, returnvalue: string): void {
    if (!this.pending.has(id)) return;
    try {
      this.settle(id, decodeAnswer(returnvalue.startsWith('"') ? (JSON.parse(returnvalue) as string) : returnvalue));
    } catch {
      this.checkLater(id);
    }
  }

  /** From an event: a failed look (Redis going away) is left to the next sweep. */
  private checkLater(id: string): void {
    this.check(id).catch(() => undefined);
  }

  private settle(id: string, answer: JobAnswer | CrashAnswer): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    for (const w of entry.waiters) w.resolve(answer);
  }

  private tick(): void {
    const now = Date.now();
    const sweepMs = this.options.sweepMs ?? 1_000;
    // Commands wait through a Redis outage (maxRetriesPerRequest: null): a sweep still running means no one can be seen.
    if (this.sweepStarted !== null && now - this.sweepStarted > 2 * sweepMs) this.workers = null;
    if (this.pending.size === 0 || (this.workers ?? 0) > 0) this.lastWorkerSeen = now;
    const waitingMs = now - this.lastWorkerSeen;
    this.options.onStatus?.({ workers: this.workers, pending: this.pending.size, waitingMs });
    if (waitingMs > this.options.timeoutMs) return this.fail(waitingMs);
    if (this.sweepStarted === null) void this.sweep();
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
    const error = new InfrastructureError(
      `no worker took jobs from ${describeAddress(this.options.address)} for ${Math.round(waitingMs / 1000)} s (--queue-timeout); start one with: autopoiesis worker --redis redis://${this.options.address.host}:${this.options.address.port} --queue ${this.options.address.name}`,
    );
    for (const [, p] of this.pending) for (const w of p.waiters) w.reject(error);
    this.pending.clear();
  }
}
