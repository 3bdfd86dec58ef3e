import { JobClient, type Blob, type CrashAnswer, type JobClientOptions, type JobReply } from '../../queue/index.js';
import type { EvalOutcome, EvalTask, WorkerSetup } from '../pool/index.js';
import type { TuneRequest } from '../mutators/tune/request.js';
import type { TuneResult } from '../mutators/tune/run.js';
import { decodeAnswer, encodeSetup, jobIdOf, type JobAnswer, type JobData, type QueueTask } from './payload.js';

export type { QueueStatus } from '../../queue/index.js';

export interface QueueEvaluatorOptions extends WorkerSetup, JobClientOptions {
  /**
   * Slots per iteration when the run gives no --batch (the engine's `threads`).
   * Not the number of workers: the lineage must not depend on who is connected.
   */
  threads: number;
}

/**
 * Sends candidate evaluations to `autopoiesis worker` processes through a
 * BullMQ queue (src/queue's JobClient): the same interface as EvaluatorPool
 * (evaluate, tune, threads, close), so the engine takes either. The run's
 * setup is one blob, stored once.
 */
export class QueueEvaluator {
  readonly threads: number;

  private constructor(
    private readonly client: JobClient,
    private readonly setup: Blob,
    threads: number,
  ) {
    this.threads = threads;
  }

  static async open(options: QueueEvaluatorOptions): Promise<QueueEvaluator> {
    const { address, threads, timeoutMs, onStatus, attempts, sweepMs, ...setup } = options;
    const blob = encodeSetup(setup);
    const client = await JobClient.open({ address, timeoutMs, onStatus, attempts, sweepMs }, [blob]);
    return new QueueEvaluator(client, blob, threads);
  }

  get setupSha(): string {
    return this.setup.sha;
  }

  async evaluate(task: EvalTask): Promise<EvalOutcome> {
    return (await this.send({ ...task, kind: 'evaluate' })) as EvalOutcome;
  }

  async tune(request: TuneRequest): Promise<TuneResult | CrashAnswer> {
    return (await this.send({ kind: 'tune', request })) as TuneResult | CrashAnswer;
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private async send(task: QueueTask): Promise<JobAnswer | CrashAnswer> {
    const reply: JobReply = await this.client.send(jobIdOf(this.setup.sha, task), task.kind ?? 'evaluate', { setup: this.setup.sha, task } satisfies JobData, [this.setup]);
    return 'answer' in reply ? decodeAnswer(reply.answer) : reply;
  }
}
