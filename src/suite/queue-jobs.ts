import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import type { Evaluation } from '../evaluate/index.js';
import type { SplitRun } from './split-run.js';
import type { PolicyTask, StaticTask } from './tasks.js';

/** The job name of the suite's runs on a queue (evolve's are 'evaluate' and 'tune'). */
export const SUITE_JOB = 'suite';

/** A suite task as it travels: its snapshot is a blob (by address), not a file name the worker may not have. */
export type QueuedSuiteTask = Omit<StaticTask, 'source'> | Omit<PolicyTask, 'source'>;

export interface SuiteJobData {
  /** sha256 of the v8-serialised snapshot (the blob's address). */
  snapshot: string;
  task: QueuedSuiteTask;
}

/** Content address of a run: the same run of the same snapshot is one job (and one answer). */
export function suiteJobId(data: SuiteJobData): string {
  return createHash('sha256').update('suite\0').update(data.snapshot).update('\0').update(JSON.stringify(data.task)).digest('hex');
}

export function encodeSuiteAnswer(answer: SplitRun | Evaluation): string {
  return serialize(answer).toString('base64');
}

export function decodeSuiteAnswer(text: string): SplitRun | Evaluation {
  return deserialize(Buffer.from(text, 'base64')) as SplitRun | Evaluation;
}
