import { z } from 'zod';

/**
 * Contract v2: the data-plane knobs a plan may set besides the roles, and the
 * settings in force that ctx.mechanics shows. Every plan field is optional: a
 * field left out keeps the current setting. The enums are the single list of
 * known values (the simulator's mechanics and the structural mutator read
 * them from here).
 */

export const PREFILL_ROUTINGS = ['predicted-ttft', 'cache-affinity', 'dynamo-kv', 'even-load', 'session'] as const;
export const DECODE_ROUTINGS = ['least-loaded', 'round-robin'] as const;
export const EVICTION_ORDERS = ['refcount', 'lru'] as const;
export const PROTECT_WAITING = ['both', 'host'] as const;

export const PrefillRoutingSchema = z.enum(PREFILL_ROUTINGS);
export const DecodeRoutingSchema = z.enum(DECODE_ROUTINGS);
export const EvictionOrderSchema = z.enum(EVICTION_ORDERS);
export const ProtectWaitingSchema = z.enum(PROTECT_WAITING);

/** Every enum value a plan field may take, by field path (for the structural mutator and the prompt). */
export const KNOB_ENUMS: Readonly<Record<string, readonly string[]>> = {
  'routing.prefill': PREFILL_ROUTINGS,
  'routing.decode': DECODE_ROUTINGS,
  'eviction.order': EVICTION_ORDERS,
  'eviction.protectWaiting': PROTECT_WAITING,
};

const nonneg = z.number().finite().nonnegative();
const positive = z.number().finite().positive();

export const PlanRoutingSchema = z.strictObject({
  prefill: PrefillRoutingSchema.optional(),
  decode: DecodeRoutingSchema.optional(),
  /** predicted-ttft: weight of the fetch time that exceeds the expected queue wait (1 = counted in full). */
  fetchExcessWeight: nonneg.optional(),
  /** predicted-ttft: seconds charged per block fetched from a peer (the duplicate copy it leaves). */
  duplicateCopyPenalty: nonneg.optional(),
  /** cache-affinity: the load is imbalanced when max - min requests per prefill node (queued or prefilling; under mechanics affinityView 'gateway', routed and not ended) exceed this... */
  affinityBalanceAbs: nonneg.optional(),
  /** ...and max exceeds min times this (>= 1); then route least loaded. */
  affinityBalanceRel: z.number().finite().min(1).optional(),
  /** cache-affinity: share of the prompt the best node must hold (0..1) to win on cache. */
  affinityMatch: z.number().finite().min(0).max(1).optional(),
});

export const PlanEvictionSchema = z.strictObject({
  /** refcount: blocks no active branch counts go first, then LRU (the KV of branches waiting on a tool is kept longest); lru: last access only. */
  order: EvictionOrderSchema.optional(),
  /**
   * Where refcount order protects the KV of branches waiting on a tool (their
   * blocks are counted): 'both' tiers (default), or 'host' memory only, so on
   * the GPU idle branches' prefixes give way to active work by plain LRU and
   * come back from host memory (a restore) when the branch resumes.
   */
  protectWaiting: ProtectWaitingSchema.optional(),
});

export const PlanTransitionsSchema = z.strictObject({
  /** Nodes that may be switching (or restarting) at once; the others wait their turn in node order. */
  maxConcurrent: z.number().int().positive().optional(),
});

export const PlanBatchingSchema = z.strictObject({
  /** Token budget of one prefill batch (and iteration), capped by each node's engine limit. */
  maxPrefillTokens: z.number().int().positive().optional(),
});

/** The knobs in force, as ctx.mechanics shows them (contract v2). */
export const CtxMechanicsSchema = z.strictObject({
  /** Fixed per run: 'symmetric' (role change in place) or 'restart' (node out, KV lost). */
  transition: z.enum(['symmetric', 'restart']),
  /** Fixed per run: 'shared' host-memory pool or 'local' per-node caches. */
  pool: z.enum(['shared', 'local']),
  /** Fixed per run: 'async' fetch hidden under queueing, or 'at-start'. */
  fetch: z.enum(['async', 'at-start']),
  routing: z.strictObject({
    prefill: PrefillRoutingSchema,
    decode: DecodeRoutingSchema,
    fetchExcessWeight: nonneg,
    duplicateCopyPenalty: nonneg,
    affinityBalanceAbs: nonneg,
    affinityBalanceRel: z.number().finite().min(1),
    affinityMatch: z.number().finite().min(0).max(1),
  }),
  eviction: z.strictObject({ order: EvictionOrderSchema, protectWaiting: ProtectWaitingSchema }),
  /** maxConcurrent null: no limit. */
  transitions: z.strictObject({ maxConcurrent: positive.int().nullable() }),
  /** maxPrefillTokens null: each node's engine limit. */
  batching: z.strictObject({ maxPrefillTokens: positive.int().nullable() }),
});
export type CtxMechanics = z.infer<typeof CtxMechanicsSchema>;
