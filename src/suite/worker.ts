import { drainWorker } from '../common/worker-drain.js';
import type { Evaluation } from '../evaluate/index.js';
import { runTask } from './run-task.js';
import type { SplitRun } from './split-run.js';
import type { WorkerTask } from './tasks.js';

/**
 * The suite's piscina worker: one static run or one policy evaluation per
 * task. Policies run in isolated-vm isolates; isolate handles finalised while
 * a worker thread is being torn down abort the process (isolated-vm 5 on
 * Node 20), so before the pool closes each worker takes one `drain` task
 * (src/common/worker-drain.ts).
 */
export default async function handle(task: WorkerTask): Promise<SplitRun | Evaluation | 'drained'> {
  return task.kind === 'drain' ? drainWorker(task) : runTask(task);
}
