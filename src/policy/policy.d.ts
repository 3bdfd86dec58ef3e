/**
 * Types for authors of serving policies (read CONTRACT.md first).
 *
 * A policy is one plain JavaScript script, not a module: it declares the
 * top-level functions
 *
 *     function shouldReschedule(ctx) { ... }   // -> boolean
 *     function schedule(ctx) { ... }           // -> Plan
 *
 * and any helpers it likes. The stdlib functions declared at the end of this
 * file are globals inside the sandbox; nothing needs importing.
 *
 * Contract version 2 (ctx.version === 2; v1 policies run unchanged). Times are seconds of simulated
 * time, sizes are tokens. This file mirrors the zod schemas in schema.ts;
 * types-in-sync.ts fails the build when the two differ.
 */

/** P: the node runs prefill. D: the node runs decode. */
export type Role = 'P' | 'D';

/** Node hardware: 'gb300', 'gb200' or 'h200' (free-form so that new kinds need no contract change). */
export type NodeKind = string;

/** 'switching': changing role (see targetRole). 'restarting': out for a restart. 'down': removed from the cluster. */
export type NodeState = 'active' | 'switching' | 'down' | 'restarting';

export interface Plan {
  /**
   * One role per node, by position in ctx.nodes (roles[i] is for ctx.nodes[i]).
   * Entries for down nodes are ignored. Among the up nodes at least
   * ctx.limits.minPrefill must be 'P' and ctx.limits.minDecode 'D'.
   */
  roles: Role[];
  /** v2 knobs: each optional; a field left out keeps the setting in force (ctx.mechanics). */
  routing?: PlanRouting;
  /** protectWaiting (refcount order): where the KV of branches waiting on a tool is kept longest, 'both' tiers or 'host' memory only. */
  eviction?: { order?: EvictionOrder; protectWaiting?: 'both' | 'host' };
  /** maxConcurrent: nodes that may be switching (or restarting) at once, a positive integer; the others wait their turn in node order. */
  transitions?: { maxConcurrent?: number };
  /** maxPrefillTokens: token budget of one prefill batch, a positive integer (capped by each node's engine limit). */
  batching?: { maxPrefillTokens?: number };
}

export type PrefillRouting = 'predicted-ttft' | 'cache-affinity' | 'dynamo-kv' | 'even-load' | 'session';
export type DecodeRouting = 'least-loaded' | 'round-robin';
/** refcount: blocks no active branch counts go first, then LRU; lru: last access only. */
export type EvictionOrder = 'refcount' | 'lru';

export interface PlanRouting {
  prefill?: PrefillRouting;
  decode?: DecodeRouting;
  /** predicted-ttft: weight of the fetch time beyond the expected wait (>= 0). */
  fetchExcessWeight?: number;
  /** predicted-ttft: seconds charged per block fetched from a peer (>= 0). */
  duplicateCopyPenalty?: number;
  /** cache-affinity: imbalanced when max - min requests per prefill node (queued or prefilling; under mechanics affinityView 'gateway', routed and not ended) exceed this (>= 0)... */
  affinityBalanceAbs?: number;
  /** ...and max > min * this (>= 1). */
  affinityBalanceRel?: number;
  /** cache-affinity: share of the prompt (0..1) the best node must hold to win on cache. */
  affinityMatch?: number;
}

/** The settings in force (ctx.mechanics, v2). */
export interface CtxMechanics {
  /** Fixed per run. */
  transition: 'symmetric' | 'restart';
  /** Fixed per run. */
  pool: 'shared' | 'local';
  /** Fixed per run. */
  fetch: 'async' | 'at-start';
  routing: Required<PlanRouting>;
  eviction: { order: EvictionOrder; protectWaiting: 'both' | 'host' };
  /** null: no limit. */
  transitions: { maxConcurrent: number | null };
  /** null: each node's engine limit. */
  batching: { maxPrefillTokens: number | null };
}

export interface CtxNode {
  id: number;
  kind: NodeKind;
  state: NodeState;
  /** The role the node serves now (while switching: the role it is leaving). */
  role: Role;
  /** Present while switching: the role the node is heading to. */
  targetRole?: Role;
  /** Requests waiting in this node's queue for its current phase. */
  queueLength: number;
  /** Requests being processed (prefill batch or decode batch). */
  running: number;
  /** KV cache in tokens: GPU memory (l1) and host memory (l2). */
  kv: { l1Used: number; l1Capacity: number; l2Used: number; l2Capacity: number };
  /**
   * v2, prefill nodes only (null otherwise). queueWaitSeconds: what a request
   * routed here now would wait (running batch left + queued predicted
   * prefill). fetchBacklogSeconds: until the queue's last prefix fetch ends.
   */
  prefill: { queueWaitSeconds: number; fetchBacklogSeconds: number } | null;
}

/** One slice (ctx.window.sliceSeconds long) of the last planning window. Per-request statistics are null when the slice had no request to measure. */
export interface Slice {
  start: number;
  end: number;
  arrivals: number;
  completions: number;
  /** t_uc: mean uncached prompt tokens of the requests that completed. */
  meanUncachedTokens: number | null;
  /** t_c: mean cached prefix tokens of the requests that completed. */
  meanCachedTokens: number | null;
  /** t_out: mean output tokens of the requests that completed. */
  meanOutputTokens: number | null;
  /** t_acc: mean tokens accepted per decode iteration. */
  meanAcceptedPerIter: number | null;
  /** Time-averaged requests waiting for or in prefill, whole cluster. */
  meanPrefillQueue: number;
  /** Time-averaged requests waiting for or in decode, whole cluster. */
  meanDecodeQueue: number;
  /** Time to first token, seconds. */
  ttftP50: number | null;
  ttftP95: number | null;
  /** End-to-end latency, seconds. */
  e2eP50: number | null;
  e2eP95: number | null;
  /** Share of prompt tokens served from cache, 0..1. */
  kvHitRate: number | null;
  /** v2: share (0..1) of the ideal hits (prompt tokens an earlier request produced) that the slice's completions recomputed; null if none. */
  lostKvReuse: number | null;
  /** v2: time-averaged share (0..1) of resident KV blocks no active branch counts (reusable only by luck); null under lru eviction. */
  kvUnreferencedShare: number | null;
}

/** The engine's fitted iteration-time model of one node kind. */
export interface KindModel {
  /** Prefill iteration: T_P = c0 + c1*sum(t_uc) + c2*sum(A) + c3*sum(t_rst), A = t_uc*t_c + t_uc*(t_uc+1)/2. */
  prefill: { c0: number; c1: number; c2: number; c3: number };
  /** Decode iteration with B running requests: T_D(B) = d0 + d1*phi(B) + d2*B, phi(B) = 1 - (1 - kFraction)^(tFwd*B). */
  decode: { d0: number; d1: number; d2: number };
  /** k/E: routed experts per token over all experts. */
  kFraction: number;
  /** Tokens fed per request per decode iteration. */
  tFwd: number;
  /** Tokens accepted per request per decode iteration. */
  tAcc: number;
  maxDecodeBatch: number;
}

export interface Transition {
  node: number;
  from: Role;
  to: Role;
  start: number;
  /** Absent while the transition is under way. */
  end?: number;
}

export interface MembershipEvent {
  node: number;
  event: 'down' | 'up';
  at: number;
}

export interface Ctx {
  version: 2;
  /** Simulated time, seconds. Date.now() in the sandbox returns now * 1000. */
  now: number;
  /** The run's seed (Math.random is already seeded from it). */
  seed: number;
  /** The plan in force. */
  plan: Plan;
  /** v2: the data-plane mechanics in force. */
  mechanics: CtxMechanics;
  nodes: CtxNode[];
  window: {
    sliceSeconds: number;
    /** Oldest first. */
    slices: Slice[];
  };
  model: { byKind: Record<NodeKind, KindModel> };
  /** Recent role transitions, oldest first. */
  transitions: Transition[];
  /** Node down/up events since the previous call, oldest first. */
  membership: MembershipEvent[];
  /** When the last plan change was made; null if never. */
  lastRescheduleAt: number | null;
  limits: { minPrefill: number; minDecode: number };
}

/** The mean request of a window or slice, as the throughput predictor takes it. */
export interface Workload {
  /** t_uc */
  uncached: number;
  /** t_c */
  cached: number;
  /** t_out */
  output: number;
  /** t_acc; null: use each node kind's model tAcc. */
  accepted: number | null;
  /** t_rst (0 when unobserved). */
  restored: number;
  /** Requests in decode across the cluster. */
  decodeQueue: number;
  /** Requests waiting for prefill across the cluster; the predictor's decode batch counts them (absent: 0). */
  prefillQueue?: number;
}

export interface PhaseCapacity {
  /** Requests/s the prefill nodes sustain. */
  prefill: number;
  /** Requests/s the decode nodes sustain. */
  decode: number;
}

type Sample = number | null | undefined;

// ---- What the policy defines ------------------------------------------------

/** Called every monitoring step (5 s by default): is it worth replanning now? Keep it cheap. */
export declare function shouldReschedule(ctx: Ctx): boolean;
/** Called when shouldReschedule said yes: the new plan. */
export declare function schedule(ctx: Ctx): Plan;

// ---- The stdlib: globals in the sandbox -------------------------------------

/** Mean of the finite numbers in xs (null/NaN skipped); NaN if none. */
export declare function mean(xs: readonly Sample[]): number;
/** Standard error of the mean of the finite numbers in xs; Infinity with fewer than two. */
export declare function stdError(xs: readonly Sample[]): number;
/** p-th percentile (p in 0..100), linear interpolation; NaN if no finite number. */
export declare function percentile(xs: readonly Sample[], p: number): number;
/** The mean request of the window (t_uc, t_c by arrivals; t_out, t_acc by completions); null if nothing was measured. */
export declare function meanWorkload(ctx: Ctx): Workload | null;
/** The mean request of slice i, missing fields taken from the window. */
export declare function sliceWorkload(ctx: Ctx, index: number): Workload | null;
/** Requests/s each phase of the split would sustain (up nodes only); workload defaults to meanWorkload(ctx). */
export declare function phaseCapacity(ctx: Ctx, roles: readonly Role[], workload?: Workload | null): PhaseCapacity;
/** Theta: requests/s of the split, min of the two phases. */
export declare function predictThroughput(ctx: Ctx, roles: readonly Role[], workload?: Workload | null): number;
/** Theta with spareNodes prefill nodes' worth held back: min(prefill x (nP - spareNodes) / nP, decode), nP the up prefill nodes; 0 (or not a positive number) is predictThroughput. */
export declare function predictWithHeadroom(ctx: Ctx, roles: readonly Role[], workload: Workload | null | undefined, spareNodes: number): number;
/** Roles with round(nP) up nodes on prefill, moving as few (and the least loaded) nodes as possible. */
export declare function splitToRoles(
  nP: number,
  nodes: readonly Pick<CtxNode, 'state' | 'role' | 'targetRole' | 'queueLength' | 'running'>[],
): Role[];
/**
 * As splitToRoles, but on mixed hardware the prefill places go to the node
 * kinds by comparative advantage: highest prefill rate / decode rate of one
 * node first (ctx.model, for workload, default meanWorkload(ctx)); within a
 * kind the least loaded move. Kinds without a model come last. One kind up,
 * or no workload: exactly splitToRoles' roles.
 */
export declare function splitByKind(
  nP: number,
  nodes: readonly Pick<CtxNode, 'state' | 'role' | 'targetRole' | 'queueLength' | 'running' | 'kind'>[],
  ctx: Ctx,
  workload?: Workload | null,
): Role[];
/** How many entries are P and D; with nodes, down nodes are not counted. */
export declare function countRoles(roles: readonly Role[], nodes?: readonly Pick<CtxNode, 'state'>[]): { P: number; D: number };
