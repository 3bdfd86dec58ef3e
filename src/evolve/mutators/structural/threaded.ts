import { Piscina } from 'piscina';
import { compiledWorker } from '../../worker-file.js';
import { MutationFailed } from '../errors.js';
import type { MutationInput, MutationOutput, Mutator } from '../types.js';
import type { StructuralOptions } from './index.js';
import type { StructuralTask, StructuralTaskResult } from './worker.js';

/** A mutator that holds a thread: close it when done. */
export interface ClosableMutator extends Mutator {
  close(): Promise<void>;
}

/**
 * The structural mutator in a worker thread of its own. Parsing and
 * re-parsing a policy takes tens of ms (over 100 ms for the larger seeds), so
 * a caller whose thread has other work to keep on time (the data plane beside
 * the control plane) runs it here. The mutation draws its seed from the
 * candidate's rng (one draw), so the result is as deterministic as the
 * in-thread mutator's, though not the same edit for the same rng.
 */
export function createThreadedStructuralMutator(options: StructuralOptions = {}): ClosableMutator {
  const maxEdits = options.maxEdits ?? 2;
  if (!Number.isInteger(maxEdits) || maxEdits < 1) throw new RangeError(`maxEdits must be a positive integer, got ${maxEdits}`);
  let pool: Piscina<StructuralTask, StructuralTaskResult> | undefined;
  return {
    name: 'structural',
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      if (signal?.aborted) throw new MutationFailed('aborted', 'aborted before it started', { mutator: 'structural' });
      // Started on first use: an llm-only run never pays for the thread.
      pool ??= new Piscina({ filename: compiledWorker(import.meta.url, 'worker.js'), minThreads: 1, maxThreads: 1, idleTimeout: 60_000 });
      const { rng, ...rest } = input;
      const result = await pool.run({ input: rest, seed: rng.nextUint32(), maxEdits });
      if (!result.ok) throw new MutationFailed(result.reason, result.detail, { mutator: 'structural' });
      return result.output;
    },
    async close() {
      const p = pool;
      pool = undefined;
      await p?.close();
    },
  };
}
