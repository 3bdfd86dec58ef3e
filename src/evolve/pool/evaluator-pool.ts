import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { SandboxOptionsSchema } from '../../sandbox/index.js';
import { compiledWorker } from '../worker-file.js';
import { packSnapshot, type PackedSnapshot } from './packed-snapshot.js';
import type { TuneRequest } from '../mutators/tune/request.js';
import type { TuneResult } from '../mutators/tune/run.js';
import { TaskClock, type DivergedOutcome, type EvalOutcome, type EvalTask, type SnapshotTrajectory, type TuneTask, type WorkerData, type WorkerSetup, type WorkerTask } from './task.js';

export interface EvaluatorPoolOptions extends WorkerSetup {
  /** Worker threads (default: the machine's cores). */
  threads?: number;
  /** Backstop slack: how much longer than the longest an evaluation can take (see backstopFor) before its worker is terminated. */
  backstopMs?: number;
}

/**
 * Sandbox steps a candidate can hold up, each bounded by the sandbox's
 * per-call wall limit: the five loading steps (prelude, its setup call, the
 * stdlib, the policy's top level, binding) and the one call in progress when
 * the evaluation's own deadline passes.
 */
const GUARDED_STEPS = 6;

/**
 * How long a worker may take on one task before the backstop terminates it:
 * the evaluation's budget, plus every sandbox step that can overrun it,
 * plus slack. A stuck candidate never gets that far: the sandbox stops a
 * call at its wall limit and the evaluator's deadline (checked between
 * calls) rejects the candidate, so its worker answers `timeout` by itself.
 * The backstop is for a worker that is broken, not for a bad candidate:
 * terminating a thread that holds live isolated-vm handles can abort the
 * whole process, so it must stay the exception.
 */
export function backstopFor(setup: Pick<WorkerSetup, 'wallLimitMs' | 'sandbox'>, slackMs = 5_000): number {
  const limits = SandboxOptionsSchema.safeParse(setup.sandbox ?? {});
  const callWallMs = limits.success ? limits.data.wallLimitMs : 1_000;
  return setup.wallLimitMs + GUARDED_STEPS * callWallMs + slackMs;
}

type PackedPoolOptions = Omit<EvaluatorPoolOptions, 'snapshot'> & { packed: PackedSnapshot };

/**
 * Evaluates candidates in a piscina pool, one sandbox per candidate. Workers
 * only return results; the caller (main thread) writes the database.
 */
export class EvaluatorPool {
  private readonly pool: Piscina<WorkerTask, EvalOutcome | TuneResult | 'drained'>;
  /** Terminate a worker that has been on one task this long (backstopFor). */
  readonly backstopMs: number;
  readonly threads: number;
  private created = 0;

  constructor(options: EvaluatorPoolOptions | PackedPoolOptions) {
    this.threads = options.threads ?? availableParallelism();
    this.backstopMs = backstopFor(options, options.backstopMs);
    const { threads: _t, backstopMs: _b, ...setup } = options;
    this.pool = new Piscina({
      // One task per worker at a time: a task's clock starts when its worker takes it.
      concurrentTasksPerWorker: 1,
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
    this.pool.on('workerCreate', () => this.created++);
  }

  /**
   * A pool whose snapshot is packed first (see packSnapshot): the caller's
   * thread never blocks on serialising a large window, whatever the threads.
   */
  static async open(options: EvaluatorPoolOptions): Promise<EvaluatorPool> {
    const { snapshot, ...rest } = options;
    return new EvaluatorPool({ ...rest, packed: await packSnapshot(snapshot) });
  }

  /** Workers started so far (the initial ones and any replacement of a terminated one). */
  get workersStarted(): number {
    return this.created;
  }

  /**
   * A tuning run in one worker (src/evolve/mutators/tune). Its backstop is one
   * evaluation's for each replay it may make; a broken worker is 'crash'.
   */
  async tune(request: TuneRequest, trajectories?: SnapshotTrajectory[]): Promise<TuneResult | { ok: false; kind: 'crash'; message: string }> {
    const backstop = this.backstopMs * Math.max(1, request.replays);
    const out = await this.runTask({ kind: 'tune', request, ...(trajectories?.length ? { trajectories } : {}) }, backstop);
    return out as TuneResult | { ok: false; kind: 'crash'; message: string };
  }

  async evaluate(task: EvalTask): Promise<EvalOutcome> {
    return (await this.runTask({ ...task, kind: 'evaluate', stopAtDivergence: false }, this.backstopMs)) as EvalOutcome;
  }

  /** evaluate, except that a candidate answering some call of `reuse` differently is not simulated: where it diverged comes back (TrajectoryReuse). */
  async evaluateOrDiverge(task: EvalTask & { reuse: Uint8Array }): Promise<EvalOutcome | DivergedOutcome> {
    return (await this.runTask({ ...task, kind: 'evaluate', stopAtDivergence: true }, this.backstopMs)) as EvalOutcome | DivergedOutcome;
  }

  private async runTask(task: EvalTask | TuneTask, backstopMs: number): Promise<EvalOutcome | DivergedOutcome | TuneResult> {
    const started = performance.now();
    const clock = TaskClock.create();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // Re-armed until the worker has been on the task for the whole backstop: waiting for a thread does not count.
    const watch = (ms: number) => {
      timer = setTimeout(() => {
        const elapsed = TaskClock.elapsed(clock);
        if (elapsed === null) return watch(backstopMs);
        if (elapsed < backstopMs) return watch(backstopMs - elapsed + 1);
        controller.abort();
      }, ms);
    };
    watch(backstopMs);
    try {
      return (await this.pool.run({ ...task, clock } as WorkerTask, { signal: controller.signal })) as EvalOutcome | DivergedOutcome | TuneResult;
    } catch (error) {
      const wallMs = performance.now() - started;
      if (controller.signal.aborted) {
        return { ok: false, kind: 'crash', message: `the evaluation worker stopped answering (${Math.round(backstopMs)} ms on one candidate, well past its budget) and was terminated`, wallMs };
      }
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

