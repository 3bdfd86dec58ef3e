import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * isolated-vm handles that are finalised while a worker thread is being
 * terminated abort the whole process (an assertion in isolated-vm 5 on
 * Node 20). Before a pool of such workers closes, every worker runs one
 * drain task, which collects them while the worker is still alive.
 * (Collecting after every evaluation also works but makes evaluations
 * about 1.5x slower.)
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** What a pool sends each of its `workers` workers once before it closes. */
export interface DrainTask {
  kind: 'drain';
  /** One Int32 counting the workers that hold their drain task. */
  barrier: SharedArrayBuffer;
  workers: number;
}

/**
 * Hold this worker until every worker holds its drain task (so that each
 * gets exactly one; at most 10 s), then collect garbage twice around a turn
 * of the event loop.
 */
export async function drainWorker(task: DrainTask): Promise<'drained'> {
  const arrived = new Int32Array(task.barrier);
  Atomics.add(arrived, 0, 1);
  const deadline = Date.now() + 10_000;
  while (Atomics.load(arrived, 0) < task.workers && Date.now() < deadline) Atomics.wait(arrived, 0, Atomics.load(arrived, 0), 50);
  collectGarbage();
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  return 'drained';
}
