import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { Piscina } from 'piscina';
import { packageRoot } from '../../common/package-root.js';
import type { EvalOutcome, EvalTask, WorkerSetup, WorkerTask } from './task.js';

export interface EvaluatorPoolOptions extends WorkerSetup {
  /** Worker threads (default: the machine's cores). */
  threads?: number;
  /** Backstop: a task still running this long after the wall limit has its worker terminated. */
  backstopMs?: number;
}

/**
 * Evaluates candidates in a piscina pool, one sandbox per candidate. Workers
 * only return results; the caller (main thread) writes the database.
 */
export class EvaluatorPool {
  private readonly pool: Piscina<WorkerTask, EvalOutcome | 'drained'>;
  private readonly backstopMs: number;
  readonly threads: number;

  constructor(options: EvaluatorPoolOptions) {
    this.threads = options.threads ?? availableParallelism();
    this.backstopMs = options.wallLimitMs + (options.backstopMs ?? 5_000);
    const { threads: _t, backstopMs: _b, ...setup } = options;
    this.pool = new Piscina({
      filename: workerFile(),
      minThreads: this.threads,
      maxThreads: this.threads,
      // isolated-vm on Node 20 needs the process started with --no-node-snapshot (a
      // process-wide flag that workers cannot be given; they share it).
      workerData: setup satisfies WorkerSetup,
      // A simulation allocates many short-lived objects; a larger young
      // generation than the worker default keeps scavenges rare.
      resourceLimits: { maxYoungGenerationSizeMb: 64 },
    });
  }

  async evaluate(task: EvalTask): Promise<EvalOutcome> {
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.backstopMs);
    try {
      return (await this.pool.run(task, { signal: controller.signal })) as EvalOutcome;
    } catch (error) {
      const wallMs = performance.now() - started;
      if (controller.signal.aborted) return { ok: false, kind: 'timeout', message: `worker terminated after ${Math.round(wallMs)} ms without an answer`, wallMs };
      return { ok: false, kind: 'crash', message: error instanceof Error ? error.message : String(error), wallMs };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    // One drain task per worker (they wait for each other, so each worker takes one).
    const barrier = new SharedArrayBuffer(4);
    await Promise.all(Array.from({ length: this.threads }, () => this.pool.run({ kind: 'drain', barrier, workers: this.threads })));
    await this.pool.close();
  }
}

/**
 * The compiled worker. Under vitest the sources are TypeScript, so the worker
 * always runs from dist/ (npm test builds first).
 */
function workerFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const compiled = join(here, 'worker.js');
  if (existsSync(compiled)) return compiled;
  return join(packageRoot(), 'dist', 'src', 'evolve', 'pool', 'worker.js');
}
