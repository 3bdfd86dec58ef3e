import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { workerData } from 'node:worker_threads';
import { EvaluationTimeout, evaluatePolicy } from '../../evaluate/index.js';
import type { EvalOutcome, EvalTask, WorkerSetup } from './task.js';

/**
 * The piscina worker: evaluates one candidate in its own sandbox. A candidate
 * that runs past the wall limit is abandoned here (its isolate disposed by the
 * evaluator); the pool's backstop terminates a worker that does not return.
 */
const setup = workerData as WorkerSetup;

/**
 * isolated-vm handles that are finalised while a worker thread is being
 * terminated abort the whole process (an assertion in isolated-vm 5 on
 * Node 20). Collecting them after every evaluation, while the worker is
 * alive, leaves nothing to finalise at termination.
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

export default async function evaluateCandidate(task: EvalTask): Promise<EvalOutcome> {
  const outcome = evaluate(task);
  collectGarbage();
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  return outcome;
}

function evaluate(task: EvalTask): EvalOutcome {
  const started = performance.now();
  try {
    const evaluation = evaluatePolicy(setup.snapshot, { name: task.name, source: task.code }, {
      schedCost: setup.schedCost,
      sandbox: setup.sandbox,
      wallLimitMs: setup.wallLimitMs,
    });
    return { ok: true, evaluation, wallMs: performance.now() - started };
  } catch (error) {
    const kind = error instanceof EvaluationTimeout ? 'timeout' : 'crash';
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, kind, message, wallMs: performance.now() - started };
  }
}
