import { serialize } from 'node:v8';
import { InfrastructureError } from '../common/errors.js';
import type { Evaluation } from '../evaluate/index.js';
import { blobOf, JobClient, type Blob, type JobClientOptions } from '../queue/index.js';
import { decodeSuiteAnswer, SUITE_JOB, suiteJobId, type SuiteJobData } from './queue-jobs.js';
import { resolveSnapshot } from './snapshot-source.js';
import type { SplitRun } from './split-run.js';
import type { PolicyTask, StaticTask, SuiteRunner, SuiteTask } from './tasks.js';

/**
 * The suite's runs as BullMQ jobs for `autopoiesis worker` processes
 * (suite --queue): the SuitePool's interface, so runSuite and computeOracles
 * take either. Each snapshot is built here once, serialised and stored in
 * Redis under its content address (src/queue blobs), so a worker needs
 * neither the scenario files nor to build the trace; a job carries the
 * address and the task. Results are placed by task, as with the pool, so the
 * report does not depend on which worker answers when.
 */
export class QueueSuiteRunner implements SuiteRunner {
  /** Blobs by snapshot key, built on first use. */
  private readonly blobs = new Map<string, Promise<Blob>>();
  /** The latest build asked for: builds go one after the other. */
  private lastBuild: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly client: JobClient,
    readonly threads: number,
  ) {}

  /** `threads`: what the suite reports as its parallelism (not the number of workers). */
  static async open(options: JobClientOptions & { threads: number }): Promise<QueueSuiteRunner> {
    const { threads, ...client } = options;
    return new QueueSuiteRunner(await JobClient.open(client), threads);
  }

  run(task: StaticTask): Promise<SplitRun>;
  run(task: PolicyTask): Promise<Evaluation>;
  async run(task: SuiteTask): Promise<SplitRun | Evaluation> {
    const blob = await this.blobFor(task);
    const { source: _source, ...rest } = task;
    const data: SuiteJobData = { snapshot: blob.sha, task: rest };
    const reply = await this.client.send(suiteJobId(data), SUITE_JOB, data, [blob]);
    if ('answer' in reply) return decodeSuiteAnswer(reply.answer);
    // Every attempt failed on the workers' side: as a crashed local worker, an infrastructure failure.
    throw new InfrastructureError(`suite worker failed: ${reply.message}`);
  }

  close(): Promise<void> {
    return this.client.close();
  }

  /**
   * Built one after the other, each in a turn of the event loop of its own:
   * the suite asks for every run at once, so the first scenario's jobs are
   * out (and workers busy) while the next snapshot is built. Kept for the run (a whole suite: about 110 MB).
   */
  private blobFor(task: SuiteTask): Promise<Blob> {
    const known = this.blobs.get(task.source.key);
    if (known) return known;
    const blob = this.lastBuild
      .catch(() => undefined)
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => blobOf(serialize(resolveSnapshot(task.source))));
    this.blobs.set(task.source.key, blob);
    this.lastBuild = blob;
    return blob;
  }
}
