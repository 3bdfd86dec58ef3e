import { z } from 'zod';
import { CtxMechanicsSchema, PlanBatchingSchema, PlanEvictionSchema, PlanRoutingSchema, PlanTransitionsSchema } from './knobs.js';

/**
 * The policy contract, version 2 (v1 policies run unchanged: v2 only adds): what a policy is given (`Ctx`) and what it
 * returns (`Plan`). The zod schemas are the contract; the TypeScript types are
 * inferred from them and `policy.d.ts` mirrors them for policy authors (a
 * compile-time check in types-in-sync.ts keeps the two equal).
 *
 * Units: times in seconds of simulated time, sizes in tokens.
 */

export const CTX_VERSION = 2;

export const RoleSchema = z.enum(['P', 'D']);
export type Role = z.infer<typeof RoleSchema>;

/** Free-form so that new hardware needs no contract change; the profiles define `gb300`, `gb200`, `h200`. */
export const NodeKindSchema = z.string().min(1);

export const NodeStateSchema = z.enum(['active', 'switching', 'down', 'restarting']);
export type NodeState = z.infer<typeof NodeStateSchema>;

const count = z.number().int().nonnegative();
const nonneg = z.number().nonnegative();
/** A per-request statistic of a slice; null when the slice had no request to measure. */
const sampled = z.number().nonnegative().nullable();

export const CtxNodeSchema = z.strictObject({
  id: z.number().int().nonnegative(),
  kind: NodeKindSchema,
  state: NodeStateSchema,
  /** The role the node serves now (while switching: the role it is leaving). */
  role: RoleSchema,
  /** Present while the node is switching: the role it is heading to. */
  targetRole: RoleSchema.optional(),
  /** Requests waiting in this node's queue for its current phase. */
  queueLength: count,
  /** Requests being processed (prefill batch or decode batch). */
  running: count,
  kv: z.strictObject({
    l1Used: nonneg,
    l1Capacity: nonneg,
    l2Used: nonneg,
    l2Capacity: nonneg,
  }),
  /**
   * v2, prefill nodes only (null otherwise): queueWaitSeconds, what a request
   * routed here now would wait (the running batch's remaining time plus the
   * queue's predicted prefill times); fetchBacklogSeconds, how long the
   * queue's prefix fetches still run (the latest one to finish).
   */
  prefill: z.strictObject({ queueWaitSeconds: nonneg, fetchBacklogSeconds: nonneg }).nullable(),
});
export type CtxNode = z.infer<typeof CtxNodeSchema>;

export const SliceSchema = z.strictObject({
  start: nonneg,
  end: nonneg,
  arrivals: count,
  completions: count,
  /** Mean uncached prompt tokens (t_uc) of the requests that completed in the slice (a request's hit is known only once it ran). */
  meanUncachedTokens: sampled,
  /** Mean cached prefix tokens (t_c) of the requests that completed in the slice. */
  meanCachedTokens: sampled,
  /** Mean output tokens (t_out) of the requests that completed in the slice. */
  meanOutputTokens: sampled,
  /** Mean tokens accepted per decode iteration (t_acc) over the slice. */
  meanAcceptedPerIter: sampled,
  /** Time-averaged requests waiting for or in prefill, whole cluster. */
  meanPrefillQueue: nonneg,
  /** Time-averaged requests waiting for or in decode, whole cluster. */
  meanDecodeQueue: nonneg,
  ttftP50: sampled,
  ttftP95: sampled,
  e2eP50: sampled,
  e2eP95: sampled,
  /** Share of prompt tokens served from cache, 0..1. */
  kvHitRate: z.number().min(0).max(1).nullable(),
  /** v2: share of the ideal hits (prompt tokens an earlier request produced) that were recomputed, completions of the slice, 0..1. */
  lostKvReuse: z.number().min(0).max(1).nullable(),
  /** v2: time-averaged share of the cluster's resident KV blocks that no active branch counts, 0..1; null unless both tiers use refcount order (an lru tier does not track it). */
  kvUnreferencedShare: z.number().min(0).max(1).nullable(),
});
export type Slice = z.infer<typeof SliceSchema>;

export const KindModelSchema = z.strictObject({
  /** T_P = c0 + c1*sum(t_uc) + c2*sum(A) + c3*sum(t_rst), seconds. */
  prefill: z.strictObject({ c0: nonneg, c1: nonneg, c2: nonneg, c3: nonneg }),
  /** T_D(B) = d0 + d1*phi(B) + d2*B, phi(B) = 1 - (1 - kFraction)^(tFwd*B), seconds. */
  decode: z.strictObject({ d0: nonneg, d1: nonneg, d2: nonneg }),
  /** k/E: routed experts used per token over experts in total. */
  kFraction: z.number().min(0).max(1),
  /** Tokens fed per request per decode iteration (> 1 with speculative decoding). */
  tFwd: z.number().positive(),
  /** Tokens accepted per request per decode iteration. */
  tAcc: z.number().positive(),
  maxDecodeBatch: z.number().int().positive(),
});
export type KindModel = z.infer<typeof KindModelSchema>;

export const TransitionSchema = z.strictObject({
  node: z.number().int().nonnegative(),
  from: RoleSchema,
  to: RoleSchema,
  start: nonneg,
  /** Absent while the transition is under way. */
  end: nonneg.optional(),
});
export type Transition = z.infer<typeof TransitionSchema>;

export const MembershipEventSchema = z.strictObject({
  node: z.number().int().nonnegative(),
  event: z.enum(['down', 'up']),
  at: nonneg,
});
export type MembershipEvent = z.infer<typeof MembershipEventSchema>;

export const PlanSchema = z.strictObject({
  /** One role per entry of ctx.nodes, by position; entries of down nodes are ignored. */
  roles: z.array(RoleSchema),
  /** v2 knobs: each optional; a field left out keeps the setting in force (ctx.mechanics). */
  routing: PlanRoutingSchema.optional(),
  eviction: PlanEvictionSchema.optional(),
  transitions: PlanTransitionsSchema.optional(),
  batching: PlanBatchingSchema.optional(),
});
export type Plan = z.infer<typeof PlanSchema>;

export const CtxSchema = z.strictObject({
  version: z.literal(CTX_VERSION),
  now: nonneg,
  /** The run's seed; Math.random in the sandbox is already seeded from it. */
  seed: z.number().int(),
  plan: PlanSchema,
  /** v2: the data-plane mechanics in force (what plan knobs left out keep). */
  mechanics: CtxMechanicsSchema,
  nodes: z.array(CtxNodeSchema),
  window: z.strictObject({
    sliceSeconds: z.number().positive(),
    /** Oldest first. */
    slices: z.array(SliceSchema),
  }),
  model: z.strictObject({
    byKind: z.record(NodeKindSchema, KindModelSchema),
  }),
  /** Recent role transitions, oldest first. */
  transitions: z.array(TransitionSchema),
  /** Node down/up events since the previous call, oldest first. */
  membership: z.array(MembershipEventSchema),
  lastRescheduleAt: nonneg.nullable(),
  /** Least number of up prefill and decode nodes a plan must keep (when the cluster has enough). */
  limits: z.strictObject({
    minPrefill: count,
    minDecode: count,
  }),
});
export type Ctx = z.infer<typeof CtxSchema>;
