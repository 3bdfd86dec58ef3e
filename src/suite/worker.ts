import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Evaluation } from '../evaluate/index.js';
import { runTask } from './run-task.js';
import type { SplitRun } from './split-run.js';
import type { WorkerTask } from './tasks.js';

/**
 * The suite's piscina worker: one static run or one policy evaluation per
 * task. Policies run in isolated-vm isolates; isolate handles finalised while
 * a worker thread is being torn down abort the process (isolated-vm 5 on
 * Node 20), so before the pool closes each worker takes one `drain` task and
 * collects garbage while it is still alive.
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

export default async function handle(task: WorkerTask): Promise<SplitRun | Evaluation | 'drained'> {
  if (task.kind !== 'drain') return runTask(task);
  // Hold this worker until every worker has its drain task, so each gets exactly one.
  const arrived = new Int32Array(task.barrier);
  Atomics.add(arrived, 0, 1);
  const deadline = Date.now() + 10_000;
  while (Atomics.load(arrived, 0) < task.workers && Date.now() < deadline) Atomics.wait(arrived, 0, Atomics.load(arrived, 0), 50);
  collectGarbage();
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  return 'drained';
}
