import type { RunSpec } from './plan.js';
import { runOne, type RunOutcome } from './run-one.js';

/** The piscina worker: one calibration run per task. */
export default function handle(spec: RunSpec): RunOutcome {
  return runOne(spec);
}
