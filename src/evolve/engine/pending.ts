import { z } from 'zod';
import { InputError } from '../../common/errors.js';
import { parseOrThrow } from '../../common/validate.js';
import { IslandSetSnapshotSchema } from '../archive/index.js';
import { BASE_KEY, PENDING_KEY, type PendingBatch, type ProposalBase } from './evolver.js';

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

const ProposalBaseSchema = z.strictObject({ iteration: z.number().int().min(1), islands: IslandSetSnapshotSchema });

/**
 * What a pipelined run's checkpoint carries beyond its iteration: the batch
 * in flight, and the population the next iteration is proposed from. Each is
 * absent when the checkpoint has none (null: a one-batch-at-a-time run; no
 * key: a database from before pipelining).
 */
export function restoreCarried(state: Readonly<Record<string, unknown>> | undefined): { pending?: PendingBatch; base?: ProposalBase } {
  const pending = restorePending(state?.[PENDING_KEY]);
  const saved = state?.[BASE_KEY];
  const base = saved === undefined || saved === null ? undefined : (parseOrThrow(ProposalBaseSchema, saved, { field: `checkpoint.${BASE_KEY}` }) as ProposalBase);
  return { ...(pending ? { pending } : {}), ...(base ? { base } : {}) };
}

function restorePending(saved: unknown): PendingBatch | undefined {
  if (saved === undefined || saved === null) return undefined;
  const parsed = parseOrThrow(PendingBatchSchema, saved, { field: 'checkpoint.pending' });
  if (parsed.sent.length !== parsed.drafts.length) throw new InputError(`${parsed.sent.length} sent flags for ${parsed.drafts.length} slots`, { field: 'checkpoint.pending' });
  return parsed as unknown as PendingBatch;
}
