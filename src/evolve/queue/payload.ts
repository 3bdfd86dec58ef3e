import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import type { Redis } from 'ioredis';
import type { EvalOutcome, EvalTask, WorkerSetup } from '../pool/index.js';
import type { TuneRequest } from '../mutators/tune/request.js';
import type { TuneResult } from '../mutators/tune/run.js';

/**
 * What travels. The setup (every snapshot of the run, the scheduling cost and
 * the limits) is stored once per run under its content address; a job carries
 * only that address and the candidate's task.
 */
export const SETUP_PREFIX = 'autopoiesis:snapshot:';
/** A stored setup outlives its run by this long (workers fetch it once per run). */
const SETUP_TTL_S = 7 * 24 * 3600;

export type QueueTask = (EvalTask & { kind?: 'evaluate' }) | { kind: 'tune'; request: TuneRequest };

export interface JobData {
  /** sha256 of the serialised WorkerSetup (key SETUP_PREFIX + setup). */
  setup: string;
  task: QueueTask;
}

/** What a job returns: the pool's answer, v8-serialised (structured clone, as the pool sends it) in base64. */
export type JobAnswer = EvalOutcome | TuneResult;

export function encodeSetup(setup: WorkerSetup): { sha: string; bytes: Buffer } {
  const bytes = serialize(setup);
  return { sha: createHash('sha256').update(bytes).digest('hex'), bytes };
}

/** Stores the setup unless it is there already (a resumed run or a second coordinator sends nothing). */
export async function putSetup(redis: Redis, sha: string, bytes: Buffer): Promise<void> {
  const key = SETUP_PREFIX + sha;
  if (await redis.expire(key, SETUP_TTL_S)) return;
  await redis.set(key, bytes, 'EX', SETUP_TTL_S);
}

export async function getSetup(redis: Redis, sha: string): Promise<WorkerSetup | null> {
  const bytes = await redis.getBuffer(SETUP_PREFIX + sha);
  if (!bytes) return null;
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== sha) throw new Error(`stored setup ${sha} hashes to ${actual}`);
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
