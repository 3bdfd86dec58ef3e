import { Rng } from '../../../common/rng.js';
import { MutationFailed, type MutationFailureReason } from '../errors.js';
import type { MutationInput, MutationOutput } from '../types.js';
import { createStructuralMutator } from './index.js';

/** One structural mutation, sent to the worker (the rng is rebuilt from a seed). */
export interface StructuralTask {
  input: Omit<MutationInput, 'rng'>;
  seed: number;
  maxEdits: number;
}

export type StructuralTaskResult = { ok: true; output: MutationOutput } | { ok: false; reason: MutationFailureReason; detail: string };

/** The piscina worker of createThreadedStructuralMutator: a failed mutation is a result, a bug rejects. */
export default async function mutate(task: StructuralTask): Promise<StructuralTaskResult> {
  try {
    const output = await createStructuralMutator({ maxEdits: task.maxEdits }).mutate({ ...task.input, rng: new Rng(task.seed) });
    return { ok: true, output };
  } catch (error) {
    if (error instanceof MutationFailed) return { ok: false, reason: error.reason, detail: error.detail };
    throw error;
  }
}
