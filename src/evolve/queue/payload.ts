import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { blobOf, type Blob } from '../../queue/index.js';
import type { EvalOutcome, EvalTask, WorkerSetup } from '../pool/index.js';
import type { TuneRequest } from '../mutators/tune/request.js';
import type { TuneResult } from '../mutators/tune/run.js';

/**
 * What travels. The setup (every snapshot of the run, the scheduling cost and
 * the limits) is stored once per run under its content address (a blob,
 * src/queue); a job carries only that address and the candidate's task.
 */
export type QueueTask = (EvalTask & { kind?: 'evaluate' }) | { kind: 'tune'; request: TuneRequest };

export interface JobData {
  /** sha256 of the serialised WorkerSetup (the blob's address). */
  setup: string;
  task: QueueTask;
}

/** What a job returns: the pool's answer, v8-serialised (structured clone, as the pool sends it) in base64. */
export type JobAnswer = EvalOutcome | TuneResult;

export function encodeSetup(setup: WorkerSetup): Blob {
  return blobOf(serialize(setup));
}

export function decodeSetup(bytes: Buffer): WorkerSetup {
  return deserialize(bytes) as WorkerSetup;
}

/**
 * A job's id is the content address of what it computes (setup, task): under
 * a deterministic scheduling cost the answer is a function of it. A resumed
 * coordinator re-sending an iteration's jobs therefore joins the jobs still
 * queued or running and reuses those already answered, instead of computing
 * (and committing) them twice. candidateId is left out: the evaluator does
 * not see it.
 */
export function jobIdOf(setup: string, task: QueueTask): string {
  const what = task.kind === 'tune' ? { kind: 'tune', request: task.request } : { kind: 'evaluate', name: task.name, code: task.code, snapshot: task.snapshot ?? 0 };
  return createHash('sha256').update(setup).update('\0').update(JSON.stringify(what)).digest('hex');
}

export function encodeAnswer(answer: JobAnswer): string {
  return serialize(answer).toString('base64');
}

export function decodeAnswer(text: string): JobAnswer {
  return deserialize(Buffer.from(text, 'base64')) as JobAnswer;
}
