import { drainWorker } from '../../common/worker-drain.js';
import { workerData } from 'node:worker_threads';
import { EvaluationTimeout, evaluateOrDiverge, evaluateTracked, snapshotEngineModel, snapshotKnobsAtStart } from '../../evaluate/index.js';
import { unpackSnapshot } from './packed-snapshot.js';
import { SearchTrajectories } from './search-trajectories.js';
import { runTuning, type TuneResult } from '../mutators/tune/run.js';
import { inForceAtStart, runKnobSearch } from '../mutators/knob-search/run.js';
import { TaskClock, type DivergedOutcome, type EvalOutcome, type PooledEvalTask, type PooledTuneTask, type WorkerData, type WorkerSetup, type WorkerTask } from './task.js';

/**
 * The piscina worker: evaluates one candidate in its own sandbox. A candidate
 * that runs past the wall limit is rejected here (the sandbox stops a long
 * call, the evaluator's deadline between calls throws EvaluationTimeout, and
 * the sandbox is disposed): the worker answers and lives on. The pool's
 * backstop only terminates a worker that stops answering altogether.
 */
const data = workerData as WorkerData;
const setup: WorkerSetup = { ...data, snapshot: data.packed ? unpackSnapshot(data.packed) : data.snapshot! };
const snapshots = [setup.snapshot, ...(setup.moreSnapshots ?? [])];
// Each snapshot's engine model, learned once here at start-up (a reference replay of its warm-up), before any task's clock runs.
// Should one fail, the evaluation that needs it fails the same way, as that task's answer (crash), not the worker's start.
for (const snapshot of snapshots) {
  try {
    snapshotEngineModel(snapshot);
  } catch {
    // reported by the task
  }
}

/** Before the pool closes every worker takes one drain task (src/common/worker-drain.ts). */
export default async function handle(task: WorkerTask): Promise<EvalOutcome | DivergedOutcome | TuneResult | 'drained'> {
  if (task.kind === 'drain') return drainWorker(task);
  if (task.kind === 'tune') return tune(task);
  return evaluate(task);
}

/** A tuning run or a knob search (request.search): its replays use the same evaluator, limits and snapshots as evaluate. */
function tune(task: PooledTuneTask): TuneResult {
  TaskClock.start(task.clock);
  const kept = new SearchTrajectories(setup.reuseInSearch === true, task.trajectories);
  const options = { schedCost: setup.schedCost, sandbox: setup.sandbox, wallLimitMs: setup.wallLimitMs };
  const replay = (code: string, index: number) => kept.evaluate(snapshots[index]!, index, { name: 'tune', source: code }, options);
  // The same answer as the search in-process with plain replays (test/evolve/mutators: tune, knob-search).
  if (task.request.search !== 'knobs') return runTuning(task.request, replay);
  return runKnobSearch(task.request, replay, inForceAtStart(task.request.snapshots.map((i) => snapshotKnobsAtStart(snapshots[i]!))));
}

function evaluate(task: PooledEvalTask): EvalOutcome | DivergedOutcome {
  TaskClock.start(task.clock);
  const started = performance.now();
  try {
    const snapshot = snapshots[task.snapshot ?? 0];
    if (!snapshot) throw new RangeError(`no snapshot ${task.snapshot} in this pool (${snapshots.length})`);
    const policy = { name: task.name, source: task.code };
    const options = { schedCost: setup.schedCost, sandbox: setup.sandbox, wallLimitMs: setup.wallLimitMs, record: task.record };
    const tracked = task.stopAtDivergence && task.reuse ? evaluateOrDiverge(snapshot, policy, { ...options, reuse: task.reuse }) : evaluateTracked(snapshot, policy, { ...options, reuse: task.reuse });
    if ('divergence' in tracked) return { diverged: tracked.divergence, wallMs: performance.now() - started };
    const { evaluation, trajectory, trajectoryKeys, reused } = tracked;
    return { ok: true, evaluation, wallMs: performance.now() - started, reused, ...(trajectory ? { trajectory, trajectoryKeys } : {}) };
  } catch (error) {
    const kind = error instanceof EvaluationTimeout ? 'timeout' : 'crash';
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, kind, message, wallMs: performance.now() - started };
  }
}
