import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { compiledWorker } from '../worker-file.js';
import { packSnapshot, type PackedSnapshot } from './packed-snapshot.js';
import type { EvalOutcome, EvalTask, WorkerData, WorkerSetup, WorkerTask } from './task.js';

export interface EvaluatorPoolOptions extends WorkerSetup {
  /** Worker threads (default: the machine's cores). */
  threads?: number;
  /** Backstop: a task still running this long after the wall limit has its worker terminated. */
  backstopMs?: number;
}

type PackedPoolOptions = Omit<EvaluatorPoolOptions, 'snapshot'> & { packed: PackedSnapshot };

/**
 * Evaluates candidates in a piscina pool, one sandbox per candidate. Workers
 * only return results; the caller (main thread) writes the database.
 */
export class EvaluatorPool {
  private readonly pool: Piscina<WorkerTask, EvalOutcome | 'drained'>;
  private readonly backstopMs: number;
  readonly threads: number;

  constructor(options: EvaluatorPoolOptions | PackedPoolOptions) {
    this.threads = options.threads ?? availableParallelism();
    this.backstopMs = options.wallLimitMs + (options.backstopMs ?? 5_000);
    const { threads: _t, backstopMs: _b, ...setup } = options;
    this.pool = new Piscina({
      filename: compiledWorker(import.meta.url, 'worker.js'),
      minThreads: this.threads,
      maxThreads: this.threads,
      // isolated-vm on Node 20 needs the process started with --no-node-snapshot (a
      // process-wide flag that workers cannot be given; they share it).
      workerData: setup satisfies WorkerData,
      // A simulation allocates many short-lived objects; a larger young
      // generation than the worker default keeps scavenges rare.
      resourceLimits: { maxYoungGenerationSizeMb: 64 },
    });
  }

  /**
   * A pool whose snapshot is packed first (see packSnapshot): the caller's
   * thread never blocks on serialising a large window, whatever the threads.
   */
  static async open(options: EvaluatorPoolOptions): Promise<EvaluatorPool> {
    const { snapshot, ...rest } = options;
    return new EvaluatorPool({ ...rest, packed: await packSnapshot(snapshot) });
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

