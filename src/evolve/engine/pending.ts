import { z } from 'zod';
import { InputError } from '../../common/errors.js';
import { parseOrThrow } from '../../common/validate.js';
import type { PendingBatch } from './evolver.js';

/**
 * A pipelined run's checkpoint keeps the batch it had already proposed and
 * sent beyond the committed iteration (Evolver.commit's `next`). The shape is
 * checked here; the slots themselves were written by this program (proposals
 * and failed-mutation records), so their fields pass through as stored.
 */
const PendingBatchSchema = z.strictObject({
  iteration: z.number().int().min(1),
  drafts: z.array(z.union([z.strictObject({ proposal: z.looseObject({ code: z.string(), codeHash: z.string(), island: z.number().int().min(0) }) }), z.strictObject({ failure: z.looseObject({ status: z.string() }) })])),
  sent: z.array(z.boolean()),
});

/** The batch in flight saved with a checkpoint; undefined when there was none (null, or a checkpoint from before pipelining). */
export function restorePending(saved: unknown): PendingBatch | undefined {
  if (saved === undefined || saved === null) return undefined;
  const parsed = parseOrThrow(PendingBatchSchema, saved, { field: 'checkpoint.pending' });
  if (parsed.sent.length !== parsed.drafts.length) throw new InputError(`${parsed.sent.length} sent flags for ${parsed.drafts.length} slots`, { field: 'checkpoint.pending' });
  return parsed as unknown as PendingBatch;
}
