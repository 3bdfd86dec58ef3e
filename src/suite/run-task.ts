import { evaluatePolicy, type Evaluation } from '../evaluate/index.js';
import { resolveSnapshot } from './snapshot-source.js';
import { runStaticSplit, type SplitRun } from './split-run.js';
import type { SuiteTask } from './tasks.js';

/** One task, in whichever thread runs it (a worker, or the caller's with --threads 1). */
export function runTask(task: SuiteTask): SplitRun | Evaluation {
  const snapshot = resolveSnapshot(task.source);
  if (task.kind === 'static') return runStaticSplit(snapshot, task.split, task.roles, task.capFactor);
  return evaluatePolicy(snapshot, task.policy, { schedCost: task.schedCost, capFactor: task.capFactor });
}
