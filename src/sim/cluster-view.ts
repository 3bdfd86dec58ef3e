import type { KvDirectory } from './kv/index.js';
import type { SliceKv, SliceMetrics, TransitionRecord } from './metrics.js';
import type { SimNode } from './node.js';
import type { PolicyCtx } from './policy-hook.js';
import { BLOCK_TOKENS } from './request-state.js';
import type { Role } from './split.js';
import type { MembershipChange } from './membership.js';

export interface CtxInputs {
  now: number;
  seed: number;
  desiredRoles: readonly Role[];
  /** The mechanics in force (ctx.mechanics, contract v2). */
  mechanics: PolicyCtx['mechanics'];
  nodes: readonly SimNode[];
  kv: KvDirectory;
  slices: readonly SliceMetrics[];
  /** The KV figures of each of `slices` (contract v2). */
  sliceKv: readonly SliceKv[];
  sliceSeconds: number;
  model: PolicyCtx['model'];
  transitions: readonly TransitionRecord[];
  membership: readonly MembershipChange[];
  lastRescheduleAt: number | null;
}

/** ctx.limits: what a plan must leave among the up nodes (validatePlan checks plans against them, in the sandbox and when a plan takes effect). */
export const PLAN_LIMITS: PolicyCtx['limits'] = { minPrefill: 1, minDecode: 1 };

/** Build the policy's ctx: a plain, copyable snapshot of what the data plane sees. */
export function buildPolicyCtx(i: CtxInputs): PolicyCtx {
  return {
    version: 2,
    now: i.now,
    seed: i.seed,
    plan: { roles: [...i.desiredRoles] },
    mechanics: i.mechanics,
    nodes: i.nodes.map((n) => ({
      id: n.id,
      kind: n.hw.kind,
      state: n.status,
      role: n.role,
      ...(n.status === 'switching' || n.status === 'restarting' ? { targetRole: n.targetRole } : {}),
      queueLength: n.role === 'P' ? n.prefillQueue.length : n.decode.waiting,
      running: n.role === 'P' ? n.prefillRunning.length : n.decode.size,
      kv: {
        // A decode node's GPU KV in use is the context of the requests it decodes;
        // a prefill node's is what its prefix cache holds.
        l1Used: n.role === 'D' ? Math.min(n.hw.l1Blocks * BLOCK_TOKENS, decodeContextTokens(n)) : i.kv.used(n.id, 1) * BLOCK_TOKENS,
        l1Capacity: n.hw.l1Blocks * BLOCK_TOKENS,
        l2Used: i.kv.used(n.id, 2) * BLOCK_TOKENS,
        l2Capacity: n.hw.l2Blocks * BLOCK_TOKENS,
      },
      prefill: n.role === 'P' ? prefillBacklog(n, i.now) : null,
    })),
    window: {
      sliceSeconds: i.sliceSeconds,
      slices: i.slices.map((s, k) => ({
        start: s.start,
        end: s.end,
        arrivals: s.arrivals,
        completions: s.completions,
        // Per-request statistics are null when the slice completed no request.
        meanUncachedTokens: measured(s, s.meanUncachedTokens),
        meanCachedTokens: measured(s, s.meanCachedTokens),
        meanOutputTokens: measured(s, s.meanOutputTokens),
        meanAcceptedPerIter: measured(s, s.meanAcceptedPerIter),
        meanPrefillQueue: s.meanPrefillQueue,
        meanDecodeQueue: s.meanDecodeQueue,
        ttftP50: measured(s, s.ttftP50),
        ttftP95: measured(s, s.ttftP95),
        e2eP50: measured(s, s.e2eP50),
        e2eP95: measured(s, s.e2eP95),
        kvHitRate: measured(s, s.kvHitRate),
        lostKvReuse: i.sliceKv[k]?.lostKvReuse ?? null,
        kvUnreferencedShare: i.sliceKv[k]?.kvUnreferencedShare ?? null,
      })),
    },
    model: i.model,
    transitions: i.transitions.map((t) => (t.end === null ? { node: t.node, from: t.from, to: t.to, start: t.start } : { node: t.node, from: t.from, to: t.to, start: t.start, end: t.end })),
    membership: i.membership.map((m) => ({ node: m.node, event: m.event, at: m.at })),
    lastRescheduleAt: i.lastRescheduleAt,
    limits: { ...PLAN_LIMITS },
  };
}

/** What a request routed to this prefill node now would wait, and how long its queue's fetches still run. */
function prefillBacklog(n: SimNode, now: number): { queueWaitSeconds: number; fetchBacklogSeconds: number } {
  let fetchEnd = now;
  for (const rs of n.prefillQueue) if (rs.fetchReadyAt > fetchEnd) fetchEnd = rs.fetchReadyAt;
  return { queueWaitSeconds: Math.max(0, n.remainingBatchSeconds(now) + n.queuedPredictedSeconds), fetchBacklogSeconds: fetchEnd - now };
}

function measured(slice: SliceMetrics, value: number): number | null {
  return slice.completions > 0 ? value : null;
}

function decodeContextTokens(node: SimNode): number {
  let tokens = 0;
  for (const rs of node.decodeRequests.values()) tokens += rs.contextTokens;
  return tokens;
}
