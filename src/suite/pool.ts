import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { InfrastructureError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import type { Evaluation } from '../evaluate/index.js';
import { runTask } from './run-task.js';
import type { SplitRun } from './split-run.js';
import type { PolicyTask, StaticTask, SuiteRunner, SuiteTask, WorkerTask } from './tasks.js';

/**
 * Runs the suite's tasks (static oracle runs, policy evaluations) on worker
 * threads, or one after the other in this thread with threads <= 1. Results
 * come back to the caller, which places them by task, never by completion
 * order, so output does not depend on scheduling.
 */
export class SuitePool implements SuiteRunner {
  private readonly pool: Piscina<WorkerTask, SplitRun | Evaluation | 'drained'> | undefined;
  readonly threads: number;

  /** `threaded`: worker threads even for one (a queue worker's main thread must stay free to renew its job locks). */
  constructor(threads = availableParallelism(), options: { threaded?: boolean } = {}) {
    this.threads = Math.max(1, threads);
    if (this.threads > 1 || options.threaded) {
      this.pool = new Piscina({
        filename: workerFile(),
        minThreads: this.threads,
        maxThreads: this.threads,
        // A simulation allocates many short-lived objects; a larger young generation keeps scavenges rare.
        resourceLimits: { maxYoungGenerationSizeMb: 64 },
      });
    }
  }

  run(task: StaticTask): Promise<SplitRun>;
  run(task: PolicyTask): Promise<Evaluation>;
  async run(task: SuiteTask): Promise<SplitRun | Evaluation> {
    if (!this.pool) {
      // Yield first so that progress output is flushed between in-thread runs.
      await new Promise((resolve) => setImmediate(resolve));
      return runTask(task);
    }
    await this.slot();
    try {
      return (await this.pool.run(task)) as SplitRun | Evaluation;
    } catch (error) {
      // Inputs are checked before tasks are queued, so a failing task is a bug or a broken worker.
      throw new InfrastructureError(`suite worker failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      this.release();
    }
  }

  /**
   * Tasks start in the order they were given: piscina's own queue does not
   * keep that order, and order matters here, both for the workers' snapshot
   * memo (tasks come scenario by scenario) and for queueing long runs first.
   * So at most `threads` tasks are handed to piscina at a time.
   */
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  private slot(): Promise<void> {
    if (this.inFlight < this.threads) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }

  async close(): Promise<void> {
    if (!this.pool) return;
    const barrier = new SharedArrayBuffer(4);
    await Promise.all(Array.from({ length: this.threads }, () => this.pool!.run({ kind: 'drain', barrier, workers: this.threads })));
    await this.pool.close();
  }
}

/** The compiled worker; under vitest the sources are TypeScript, so it runs from dist/ (build first). */
function workerFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const compiled = join(here, 'worker.js');
  if (existsSync(compiled)) return compiled;
  return join(packageRoot(), 'dist', relative(packageRoot(), here), 'worker.js');
}
