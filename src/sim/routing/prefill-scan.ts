import type { PrefixMatch } from '../kv/index.js';
import { DEFAULT_PREFILL_TUNING, type PrefillRouting, type PrefillTuning } from '../mechanics.js';
import type { SimNode } from '../node.js';
import type { RequestState } from '../request-state.js';
import type { PrefillRouterState } from './prefill.js';
import { gatewayCacheAware } from './cache-aware.js';
import { predictedTtftIndexed } from './prefill-indexed.js';
import { costsOn, fillPlacement, lastCosts, placementOn, type PrefillPlacement } from './prefix.js';

/**
 * choosePrefill (prefill.ts) without a placement per node: the same scores,
 * computed from the match arrays and the nodes' fields in one pass over the
 * accepting nodes, in id order, with the same comparisons, so the same node
 * wins (lowest id on equal score). Only the winner gets a placement object.
 * Placing a request on every node of a 1,024-node cluster allocated and
 * filled one object per node and request, and evaluated the engine's model
 * for routers that never read it. The randomised test
 * (test/sim/routing/prefill-scan.test.ts) checks it against choosePrefill.
 * `candidates`: the nodes accepting prefill in id order (non-empty), of `nodes`.
 * predicted-TTFT first tries the wait index (prefill-indexed.ts).
 */
export function choosePrefillScan(
  routing: PrefillRouting,
  rs: RequestState,
  nodes: readonly SimNode[],
  candidates: readonly SimNode[],
  match: PrefixMatch,
  sharedPool: boolean,
  now: number,
  state: PrefillRouterState,
  tuning: Readonly<PrefillTuning> = DEFAULT_PREFILL_TUNING,
): PrefillPlacement {
  switch (routing) {
    case 'predicted-ttft':
      return predictedTtftIndexed(rs, nodes, candidates, match, sharedPool, now, tuning) ?? predictedTtftScan(rs, candidates, match, sharedPool, now, tuning);
    case 'cache-affinity':
      return placementOn(state.gateway ? gatewayCacheAware(rs, candidates, now, state.gateway, tuning) : cacheAffinityScan(rs, candidates, match, tuning), rs, match, sharedPool);
    case 'dynamo-kv':
      return placementOn(dynamoScan(rs, candidates, match), rs, match, sharedPool);
    case 'even-load':
      return placementOn(leastLoadedScan(candidates), rs, match, sharedPool);
    case 'session': {
      const sticky = state.sessionNode.get(rs.req.branch);
      let chosen: SimNode | undefined;
      if (sticky !== undefined) for (const n of candidates) if (n.id === sticky) chosen = n;
      chosen ??= leastLoadedScan(candidates);
      if (rs.req.branch >= 0) state.sessionNode.set(rs.req.branch, chosen.id);
      return placementOn(chosen, rs, match, sharedPool);
    }
  }
}

/** predictedTtft (prefill.ts) per node, inline: the same operations in the same order. */
export function predictedTtftScan(rs: RequestState, candidates: readonly SimNode[], match: PrefixMatch, shared: boolean, now: number, tuning: Readonly<PrefillTuning>): PrefillPlacement {
  const { gpu: gpuOf, local: localOf, pool } = match;
  const w = tuning.fetchExcessWeight;
  const penalty = tuning.duplicateCopyPenalty;
  let best = -1;
  let bestScore = 0;
  let bestFetch = 0;
  let bestPrefill = 0;
  // The previous node's question and answer: costsOn would reuse them (most nodes ask the same).
  let engine: SimNode['engine'] | null = null;
  let kind = '';
  let maxTokens = -1;
  let lastGpu = -1;
  let lastLocal = -1;
  let fetchSeconds = 0;
  let predictedPrefill = 0;
  for (let i = 0; i < candidates.length; i++) {
    const node = candidates[i]!;
    const gpu = gpuOf[node.id]!;
    const local = localOf[node.id]!;
    const hit = shared ? Math.max(local, pool) : local;
    const hw = node.hw;
    if (gpu !== lastGpu || local !== lastLocal || node.engine !== engine || hw.kind !== kind || hw.maxPrefillBatchTokens !== maxTokens) {
      costsOn(node, rs, match, shared, gpu, local, hit);
      fetchSeconds = lastCosts.fetchSeconds;
      predictedPrefill = lastCosts.predictedPrefill;
      engine = node.engine;
      kind = hw.kind;
      maxTokens = hw.maxPrefillBatchTokens;
      lastGpu = gpu;
      lastLocal = local;
    }
    // node.remainingBatchSeconds(now) + node.queuedPredictedSeconds, as predictedTtft computes it.
    const wait = (node.prefillRunning.length > 0 ? Math.max(0, node.prefillBusyUntil - now) : 0) + node.queuedPredictedSeconds;
    const fetchExcess = Math.max(0, fetchSeconds - wait);
    const score = wait + predictedPrefill + fetchExcess * w + (hit - local) * penalty;
    if (best < 0 || score < bestScore) {
      best = i;
      bestScore = score;
      bestFetch = fetchSeconds;
      bestPrefill = predictedPrefill;
    }
  }
  const node = candidates[best]!;
  const gpu = gpuOf[node.id]!;
  const local = localOf[node.id]!;
  const hit = shared ? Math.max(local, pool) : local;
  return fillPlacement(node, hit, gpu, hit - gpu, hit - local, bestFetch, bestPrefill);
}

/** affinityView 'cache': SGLang's cache-aware policy as cacheAffinity (prefill.ts) scores it: hit - fetched is the node's own (local) prefix. */
function cacheAffinityScan(rs: RequestState, candidates: readonly SimNode[], match: PrefixMatch, tuning: Readonly<PrefillTuning>): SimNode {
  let min = Infinity;
  let max = -Infinity;
  for (const n of candidates) {
    const load = n.prefillLoad;
    if (load < min) min = load;
    if (load > max) max = load;
  }
  const imbalanced = max - min > tuning.affinityBalanceAbs && max > min * tuning.affinityBalanceRel;
  if (imbalanced) return leastLoadedScan(candidates);
  const localOf = match.local;
  let best = candidates[0]!;
  let bestOwn = localOf[best.id]!;
  for (let i = 1; i < candidates.length; i++) {
    const own = localOf[candidates[i]!.id]!;
    if (own > bestOwn) {
      best = candidates[i]!;
      bestOwn = own;
    }
  }
  const total = rs.req.blocks.length;
  const matchRate = total > 0 ? bestOwn / total : 0;
  return matchRate > tuning.affinityMatch ? best : leastLoadedScan(candidates);
}

function dynamoScan(rs: RequestState, candidates: readonly SimNode[], match: PrefixMatch): SimNode {
  const total = rs.req.blocks.length;
  const gpuOf = match.gpu;
  let best = candidates[0]!;
  let bestScore = total - gpuOf[best.id]! + best.activeBlocks;
  for (let i = 1; i < candidates.length; i++) {
    const n = candidates[i]!;
    const score = total - gpuOf[n.id]! + n.activeBlocks;
    if (score < bestScore) {
      best = n;
      bestScore = score;
    }
  }
  return best;
}

function leastLoadedScan(candidates: readonly SimNode[]): SimNode {
  let best = candidates[0]!;
  let bestScore = best.prefillLoad * 1e6 + best.queuedPredictedSeconds;
  for (let i = 1; i < candidates.length; i++) {
    const n = candidates[i]!;
    const score = n.prefillLoad * 1e6 + n.queuedPredictedSeconds;
    if (score < bestScore) {
      best = n;
      bestScore = score;
    }
  }
  return best;
}
