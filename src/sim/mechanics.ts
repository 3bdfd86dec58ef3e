import { z } from 'zod';
import { InputError } from '../common/errors.js';
import { DecodeRoutingSchema, EvictionOrderSchema, PrefillRoutingSchema, type CtxMechanics } from '../policy/knobs.js';
import type { Plan } from '../policy/schema.js';

/**
 * Each mechanic of the data plane is switchable so that the baselines of the
 * published study can be reproduced (design section 3).
 */
export const MechanicsSchema = z.strictObject({
  /** symmetric: role change in place; restart: node out for the profile's restart time, KV lost. */
  transition: z.enum(['symmetric', 'restart']),
  /** shared: pooled host memory, peers read each other's L2; local: each node only its own L1/L2. */
  pool: z.enum(['shared', 'local']),
  /** async: fetch hidden under queue wait; at-start: fetch begins with prefill and adds to it. */
  fetch: z.enum(['async', 'at-start']),
  /** refcount: count-zero blocks first, then LRU; lru: last access only. */
  eviction: EvictionOrderSchema,
  prefillRouting: PrefillRoutingSchema,
  decodeRouting: DecodeRoutingSchema,
  // ---- decode GPU KV capacity (issue #17) ------------------------------------
  /**
   * unbounded: a decode node's batch is capped by request count only (maxBatch).
   * gpu: also by the node's GPU KV (the profile's gpuKvBytes): a request enters
   * only when its KV fits, and running requests are retracted (re-queued on the
   * node, keeping what they generated) when their growing KV runs out of room.
   * Source: SGLang PD decode (DecodePreallocQueue, retract_decode); vLLM
   * preemption. See src/sim/perf/decode-kv.ts and docs/simulator.md.
   */
  decodeKv: z.enum(['unbounded', 'gpu']).default('unbounded'),
  // ---- end decode GPU KV capacity --------------------------------------------
  // ---- cache-affinity's view of the nodes (issue #17) -------------------------
  /**
   * What the cache-affinity prefill router reads. cache: the nodes' actual
   * caches (the best node's own prefix), load = prefill queue + running batch,
   * least loaded when nothing matches. gateway: the SGLang model gateway's
   * cache-aware policy as it runs (sgl-project/sglang sgl-router
   * src/policies/cache_aware.rs and tree.rs): its own approximate tree of the
   * prompts it sent to each node (GATEWAY_TREE), load = requests in flight end
   * to end (one load guard over the prefill and decode worker in the PD
   * router), smallest tree when nothing matches. Off (cache) in every preset:
   * the faithful gateway makes the study's cluster faster than published
   * (docs/simulator.md). Other routers ignore it.
   */
  affinityView: z.enum(['cache', 'gateway']).default('cache'),
  // ---- end cache-affinity's view ---------------------------------------------
  // ---- how an at-start fetch meets the prefill (issue #17) --------------------
  /**
   * fetch at-start only. none: the batch's iteration begins with the longest
   * fetch of its requests, the GPU idle meanwhile. layerwise: SGLang HiCache's
   * load-back (sgl-project/sglang python/sglang/srt/managers/cache_controller.py,
   * HiCacheController.load / start_loading): the batch's host-to-GPU loads are
   * merged into one transfer at one GPU's host-link rate (MLA KV is whole on
   * every TP rank) and stream in layer by layer while the forward runs, so the
   * GPU waits only for the first layer's share and for any load time beyond
   * the compute. See src/sim/perf/layerwise-load.ts and docs/simulator.md.
   * none in every preset.
   */
  fetchOverlap: z.enum(['none', 'layerwise']).default('none'),
  // ---- end fetch overlap ------------------------------------------------------
  // ---- what a decode node keeps of what it generated (issue #17) -------------
  /**
   * cached: when a request ends, the blocks its decode filled (prompt tail and
   * output) enter the decode node's L1 and L2, so the branch's next call can
   * reuse them (from the pool when pool is shared). dropped: the decode node
   * frees the request's KV when it ends and writes none of it anywhere, as
   * SGLang PD decode does unless --disaggregation-decode-enable-offload-kvcache
   * is set (DecodeKVCacheOffloadManager; its radix cache is off too,
   * --disaggregation-decode-enable-radix-cache): the next call recomputes the
   * previous output, which the ideal hit rate still counts (it was produced).
   * See docs/simulator.md. cached in every preset.
   */
  decodeOutput: z.enum(['cached', 'dropped']).default('cached'),
  // ---- end decode output ----------------------------------------------------
  // ---- when a request takes its decode node's request slot (issue #17) -------
  /**
   * join: a request needs a decode node only when its KV arrives (the batch
   * limit is the profile's maxDecodeRequests). dispatch: SGLang PD. The
   * request's decode node is chosen when it is dispatched and must
   * preallocate it a request slot before its prefill may start
   * (sgl-project/sglang python/sglang/srt/disaggregation/prefill.py, the
   * bootstrap queue; decode.py DecodePreallocQueue.pop_preallocated stops
   * when req_to_token_pool has no free slot); the slot is held through
   * prefill, transfer and decode. A decode node has max_running_requests
   * slots (DecodeReqToTokenPool: no extra pre-allocation slots above 32),
   * which SGLang sets to 48 under speculative decoding unless given
   * (server_args.py). See src/sim/transitions/decode-slots.ts.
   */
  decodeSlots: z.enum(['join', 'dispatch']).default('join'),
  // ---- end decode slots -----------------------------------------------------
});
export type Mechanics = z.infer<typeof MechanicsSchema>;
export type PrefillRouting = Mechanics['prefillRouting'];
export type DecodeRouting = Mechanics['decodeRouting'];
export type AffinityView = Mechanics['affinityView'];

export const MECHANICS_PRESETS = {
  'evolving-infra': {
    transition: 'symmetric',
    pool: 'shared',
    fetch: 'async',
    eviction: 'refcount',
    prefillRouting: 'predicted-ttft',
    decodeRouting: 'least-loaded',
    decodeKv: 'unbounded',
    affinityView: 'cache',
    fetchOverlap: 'none',
    decodeOutput: 'cached',
    decodeSlots: 'join',
  },
  /** SGLang PD: fixed roles (a policy may still replan; the transition is then in place). */
  'sglang-pd': {
    transition: 'symmetric',
    pool: 'local',
    fetch: 'at-start',
    eviction: 'lru',
    prefillRouting: 'cache-affinity',
    decodeRouting: 'round-robin',
    decodeKv: 'unbounded',
    affinityView: 'cache',
    fetchOverlap: 'none',
    decodeOutput: 'cached',
    decodeSlots: 'dispatch',
  },
  dynamo: {
    transition: 'restart',
    pool: 'local',
    fetch: 'at-start',
    eviction: 'lru',
    prefillRouting: 'dynamo-kv',
    decodeRouting: 'round-robin',
    decodeKv: 'unbounded',
    affinityView: 'cache',
    fetchOverlap: 'none',
    decodeOutput: 'cached',
    decodeSlots: 'join',
  },
} as const satisfies Record<string, Mechanics>;
export type MechanicsPresetName = keyof typeof MECHANICS_PRESETS;

/**
 * A preset name, optionally followed by overrides: `sglang-pd,fetch=async`.
 * Unknown names, keys or values are input errors naming the field.
 */
export function parseMechanics(spec: string): Mechanics {
  const [name, ...overrides] = spec.split(',').map((s) => s.trim());
  const base = (MECHANICS_PRESETS as Record<string, Mechanics>)[name ?? ''];
  if (!base) {
    throw new InputError(`unknown mechanics preset "${name}" (known: ${Object.keys(MECHANICS_PRESETS).join(', ')})`, { field: 'mechanics' });
  }
  const merged: Record<string, string> = { ...base };
  for (const item of overrides) {
    const [key, value] = item.split('=');
    if (!key || value === undefined || !(key in base)) {
      throw new InputError(`unknown mechanic override "${item}" (keys: ${Object.keys(base).join(', ')})`, { field: 'mechanics' });
    }
    merged[key] = value;
  }
  const parsed = MechanicsSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`unknown value for ${issue.path.join('.')}: ${issue.message}`, { field: `mechanics.${issue.path.join('.')}` });
  }
  return parsed.data;
}

/** The prefill routers' tunable weights (contract v2: plan.routing). */
export interface PrefillTuning {
  /** predicted-ttft: weight of the fetch time beyond the expected wait. */
  fetchExcessWeight: number;
  /** predicted-ttft: seconds per block fetched from a peer (the duplicate copy it leaves costs host memory). */
  duplicateCopyPenalty: number;
  /** cache-affinity (SGLang model gateway): imbalanced when max - min load > abs and max > min * rel; then least loaded. */
  affinityBalanceAbs: number;
  affinityBalanceRel: number;
  /** cache-affinity: the best node's share of the prompt must exceed this to win on cache. */
  affinityMatch: number;
}

/** SGLang model-gateway cache-aware defaults (absolute 32, relative 1.1, match 0.5) and the predicted-TTFT router's. */
export const DEFAULT_PREFILL_TUNING: Readonly<PrefillTuning> = {
  fetchExcessWeight: 1,
  duplicateCopyPenalty: 2e-5,
  affinityBalanceAbs: 32,
  affinityBalanceRel: 1.1,
  affinityMatch: 0.5,
};

// ---------------------------------------------------------------------------
// SGLang model gateway: the cache-aware policy's approximate tree (issue #17;
// mechanics affinityView 'gateway' only).
// ---------------------------------------------------------------------------

/**
 * The gateway's cache-aware policy does not read the workers' caches: it keeps
 * its own radix tree of the request text it has sent to each worker
 * (sgl-project/sglang sgl-router/src/policies/cache_aware.rs and tree.rs).
 * Every `evictionIntervalSeconds` a background thread prunes each worker's
 * tree, least recently used leaves first, down to `maxTreeChars` characters
 * (tree.rs evict_tenant_by_size). Values: the `launch_router` command-line
 * defaults, max_tree_size 67,108,864 and eviction_interval_secs 60, as a
 * SGLang 0.5.8 PD gateway logs them at start (the library's own Default,
 * 10,000 characters every 30 s, would empty the tree twice a minute and
 * lose far more than the study's 2.4% of KV reuse). `charsPerToken`
 * (assumption): the tree counts characters, the simulator tokens; ~4
 * characters per token of English text and code.
 */
export const GATEWAY_TREE = {
  maxTreeChars: 2 ** 26,
  evictionIntervalSeconds: 60,
  charsPerToken: 4,
} as const;

// ---------------------------------------------------------------------------

/**
 * The mechanics a plan can change during a run (contract v2), starting from
 * the run's Mechanics. A routing change applies to requests routed from then
 * on (the routers read these per request); an eviction change to the next
 * eviction; maxConcurrent to the next switch started; maxPrefillTokens to the
 * next batch formed. transition, pool and fetch stay fixed for the run.
 */
export interface Knobs {
  prefillRouting: PrefillRouting;
  decodeRouting: DecodeRouting;
  eviction: Mechanics['eviction'];
  /** Under refcount: counted KV kept longest in both tiers, or in host memory only. */
  protectWaiting: 'both' | 'host';
  tuning: PrefillTuning;
  /** null: no limit. */
  maxConcurrent: number | null;
  /** null: each node's engine limit. */
  maxPrefillTokens: number | null;
}

export function initialKnobs(m: Mechanics): Knobs {
  return {
    prefillRouting: m.prefillRouting,
    decodeRouting: m.decodeRouting,
    eviction: m.eviction,
    protectWaiting: 'both',
    tuning: { ...DEFAULT_PREFILL_TUNING },
    maxConcurrent: null,
    maxPrefillTokens: null,
  };
}

/** Set the fields a (validated) plan gives; the others keep their setting. */
export function applyPlanKnobs(k: Knobs, plan: Plan): void {
  const r = plan.routing;
  if (r) {
    if (r.prefill !== undefined) k.prefillRouting = r.prefill;
    if (r.decode !== undefined) k.decodeRouting = r.decode;
    const t = k.tuning;
    if (r.fetchExcessWeight !== undefined) t.fetchExcessWeight = r.fetchExcessWeight;
    if (r.duplicateCopyPenalty !== undefined) t.duplicateCopyPenalty = r.duplicateCopyPenalty;
    if (r.affinityBalanceAbs !== undefined) t.affinityBalanceAbs = r.affinityBalanceAbs;
    if (r.affinityBalanceRel !== undefined) t.affinityBalanceRel = r.affinityBalanceRel;
    if (r.affinityMatch !== undefined) t.affinityMatch = r.affinityMatch;
  }
  if (plan.eviction?.order !== undefined) k.eviction = plan.eviction.order;
  if (plan.eviction?.protectWaiting !== undefined) k.protectWaiting = plan.eviction.protectWaiting;
  if (plan.transitions?.maxConcurrent !== undefined) k.maxConcurrent = plan.transitions.maxConcurrent;
  if (plan.batching?.maxPrefillTokens !== undefined) k.maxPrefillTokens = plan.batching.maxPrefillTokens;
}

/**
 * The plan fields that take a run on `m` to the settings `inForce` shows (a
 * ctx.mechanics read off another run, e.g. the data plane where a snapshot
 * starts), or undefined when they are the run's own. A replay started with
 * them begins where the recorded cluster was, not at the preset's settings.
 */
export function knobsToReach(m: Mechanics, inForce: CtxMechanics): Omit<Plan, 'roles'> | undefined {
  const own = ctxMechanics(m, initialKnobs(m));
  const out: Omit<Plan, 'roles'> = {};
  const routing: NonNullable<Plan['routing']> = {};
  for (const key of Object.keys(inForce.routing) as (keyof CtxMechanics['routing'])[]) {
    if (inForce.routing[key] !== own.routing[key]) (routing as Record<string, unknown>)[key] = inForce.routing[key];
  }
  if (Object.keys(routing).length > 0) out.routing = routing;
  const eviction: NonNullable<Plan['eviction']> = {};
  if (inForce.eviction.order !== own.eviction.order) eviction.order = inForce.eviction.order;
  if (inForce.eviction.protectWaiting !== own.eviction.protectWaiting) eviction.protectWaiting = inForce.eviction.protectWaiting;
  if (Object.keys(eviction).length > 0) out.eviction = eviction;
  // null (no limit) cannot be written as a plan field; it is the initial setting anyway.
  if (inForce.transitions.maxConcurrent !== null) out.transitions = { maxConcurrent: inForce.transitions.maxConcurrent };
  if (inForce.batching.maxPrefillTokens !== null) out.batching = { maxPrefillTokens: inForce.batching.maxPrefillTokens };
  return Object.keys(out).length > 0 ? out : undefined;
}

/** ctx.mechanics at the start of a run on `m` begun with the plan fields `knobs` (a snapshot's knobs in force). */
export function knobsAtStart(m: Mechanics, knobs: Omit<Plan, 'roles'> | undefined): CtxMechanics {
  const k = initialKnobs(m);
  if (knobs) applyPlanKnobs(k, { roles: [], ...knobs });
  return ctxMechanics(m, k);
}

/** ctx.mechanics: the settings in force. */
export function ctxMechanics(m: Mechanics, k: Knobs): CtxMechanics {
  return {
    transition: m.transition,
    pool: m.pool,
    fetch: m.fetch,
    routing: { prefill: k.prefillRouting, decode: k.decodeRouting, ...k.tuning },
    eviction: { order: k.eviction, protectWaiting: k.protectWaiting },
    transitions: { maxConcurrent: k.maxConcurrent },
    batching: { maxPrefillTokens: k.maxPrefillTokens },
  };
}
