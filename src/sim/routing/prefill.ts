import { DEFAULT_PREFILL_TUNING, type AffinityView, type PrefillRouting, type PrefillTuning } from '../mechanics.js';
import type { PrefillPlacement } from './prefix.js';
import type { RequestState } from '../request-state.js';
import { gatewayCacheAware, newGatewayState, type GatewayState } from './cache-aware.js';

/** Router state that persists across requests (sticky sessions). */
export interface PrefillRouterState {
  sessionNode: Map<number, number>;
  /**
   * Mechanics affinityView 'gateway' only: the SGLang gateway's tree and load
   * counts, which cache-affinity then reads instead of the nodes' caches and
   * queues (cache-aware.ts). Absent under 'cache': no tree, no counting.
   */
  gateway?: GatewayState;
}

/** The router state a run starts with, for its mechanics' affinityView. */
export function newPrefillRouterState(view: AffinityView): PrefillRouterState {
  return view === 'gateway' ? { sessionNode: new Map(), gateway: newGatewayState() } : { sessionNode: new Map() };
}

/**
 * The branch ended (it sends no more requests): its sticky node is no longer
 * needed. Without this the map grows with every branch of a long run.
 */
export function forgetBranch(state: PrefillRouterState, branch: number): void {
  state.sessionNode.delete(branch);
}

/** SGLang model-gateway cache-aware policy thresholds (issue: absolute 32, relative 1.1, match 0.5). */
export const CACHE_AFFINITY = {
  balanceAbsThreshold: DEFAULT_PREFILL_TUNING.affinityBalanceAbs,
  balanceRelThreshold: DEFAULT_PREFILL_TUNING.affinityBalanceRel,
  matchThreshold: DEFAULT_PREFILL_TUNING.affinityMatch,
} as const;

/**
 * Penalty per block fetched from a peer, in seconds: the duplicate copy the
 * fetch leaves in this node's host memory costs capacity, so between two
 * otherwise equal nodes the one that already holds the prefix wins.
 */
export const DUPLICATE_COPY_PENALTY_PER_BLOCK = DEFAULT_PREFILL_TUNING.duplicateCopyPenalty;

/**
 * Pick the prefill node for a request among placements on every node that
 * accepts prefill (non-empty). Ties go to the lowest node id, so routing is
 * deterministic. `tuning`: the routers' weights in force (a plan may change them).
 */
export function choosePrefill(
  routing: PrefillRouting,
  rs: RequestState,
  placements: readonly PrefillPlacement[],
  now: number,
  state: PrefillRouterState,
  tuning: Readonly<PrefillTuning> = DEFAULT_PREFILL_TUNING,
): PrefillPlacement {
  switch (routing) {
    case 'predicted-ttft':
      return argMin(placements, (p) => predictedTtft(p, now, tuning));
    case 'cache-affinity':
      return cacheAffinity(rs, placements, now, state, tuning);
    case 'dynamo-kv':
      return argMin(placements, (p) => rs.req.blocks.length - p.gpuBlocks + p.node.activeBlocks);
    case 'even-load':
      return leastLoaded(placements);
    case 'session': {
      const sticky = state.sessionNode.get(rs.req.branch);
      const found = sticky !== undefined ? placements.find((p) => p.node.id === sticky) : undefined;
      const chosen = found ?? leastLoaded(placements);
      if (rs.req.branch >= 0) state.sessionNode.set(rs.req.branch, chosen.node.id);
      return chosen;
    }
  }
}

/**
 * T_n(w) = remaining time of n's running batch + sum of its queue's predicted
 * prefill times + this request's, plus the part of the fetch that exceeds the
 * expected wait, plus the duplicate-copy penalty (design section 3).
 */
export function predictedTtft(p: PrefillPlacement, now: number, tuning: Readonly<PrefillTuning> = DEFAULT_PREFILL_TUNING): number {
  const wait = p.node.remainingBatchSeconds(now) + p.node.queuedPredictedSeconds;
  const fetchExcess = Math.max(0, p.fetchSeconds - wait);
  return wait + p.predictedPrefill + fetchExcess * tuning.fetchExcessWeight + p.fetchedBlocks * tuning.duplicateCopyPenalty;
}

function cacheAffinity(rs: RequestState, placements: readonly PrefillPlacement[], now: number, state: PrefillRouterState, tuning: Readonly<PrefillTuning>): PrefillPlacement {
  if (state.gateway) {
    // The SGLang gateway's own view (cache-aware.ts): its tree and load counts, not the placements' cache hits.
    const node = gatewayCacheAware(rs, placements.map((p) => p.node), now, state.gateway, tuning);
    return placements.find((p) => p.node === node)!;
  }
  let min = Infinity;
  let max = -Infinity;
  for (const p of placements) {
    min = Math.min(min, p.node.prefillLoad);
    max = Math.max(max, p.node.prefillLoad);
  }
  const imbalanced = max - min > tuning.affinityBalanceAbs && max > min * tuning.affinityBalanceRel;
  if (imbalanced) return leastLoaded(placements);
  // affinityView 'cache': the node's own cache stands for what the gateway sent it.
  const best = argMin(placements, (p) => -(p.hitBlocks - p.fetchedBlocks));
  const total = rs.req.blocks.length;
  const matchRate = total > 0 ? (best.hitBlocks - best.fetchedBlocks) / total : 0;
  return matchRate > tuning.affinityMatch ? best : leastLoaded(placements);
}

function leastLoaded(placements: readonly PrefillPlacement[]): PrefillPlacement {
  return argMin(placements, (p) => p.node.prefillLoad * 1e6 + p.node.queuedPredictedSeconds);
}

function argMin<T>(items: readonly T[], score: (item: T) => number): T {
  let best = items[0]!;
  let bestScore = score(best);
  for (let i = 1; i < items.length; i++) {
    const s = score(items[i]!);
    if (s < bestScore) {
      best = items[i]!;
      bestScore = s;
    }
  }
  return best;
}
