import type { PrefixMatch } from '../kv/index.js';
import type { PrefillTuning } from '../mechanics.js';
import type { SimNode } from '../node.js';
import type { RequestState } from '../request-state.js';
import { prefillCandidateIds } from './candidates.js';
import { costsOn, fillPlacement, lastCosts, type PrefillPlacement } from './prefix.js';
import { waitIndex, type WaitIndex } from './wait-index.js';

/**
 * predicted-TTFT routing without scoring every node: the same winner as
 * predictedTtftScan (prefill-scan.ts), which scores every accepting node.
 *
 * A request's match is the same on most nodes: every node holds the shared
 * system prompt, and only a few hold more of the prompt. Those "typical"
 * nodes (one kind, one engine model, the most common (gpu, local) counts)
 * share the fetch time F, the predicted prefill P and the fetched blocks, so
 * their score is a function of their wait alone:
 *   g(wait) = wait + P + w * max(0, F - wait) + fetched * penalty,
 * non-decreasing for w <= 1. The other nodes are scored one by one. Among
 * typical nodes, only those whose wait is within eps of max(wait_r, F), for
 * a typical node r, can reach r's score up to rounding: the wait index
 * (wait-index.ts) lists them (idle nodes with no queue estimate all wait
 * exactly 0 and score the same, so only the lowest id of them counts). Every
 * node listed is scored exactly as the scan scores it, and ties go to the
 * lowest id, so the choice is the scan's.
 *
 * Returns null when the case is not covered (several kinds or engine models
 * among the accepting nodes, w > 1, many untypical nodes, or no typical node
 * among the smallest waits): the caller scans.
 */
export function predictedTtftIndexed(
  rs: RequestState,
  nodes: readonly SimNode[],
  candidates: readonly SimNode[],
  match: PrefixMatch,
  shared: boolean,
  now: number,
  tuning: Readonly<PrefillTuning>,
): PrefillPlacement | null {
  const w = tuning.fetchExcessWeight;
  if (!(w <= 1) || candidates.length < 32) return null;
  const { ids, uniform } = prefillCandidateIds(nodes);
  if (!uniform || ids.length !== candidates.length) return null;
  const { gpu: gpuOf, local: localOf, pool } = match;
  // The most common (gpu, local) pair (majority vote), then the nodes off it.
  let g0 = 0;
  let l0 = 0;
  let votes = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const g = gpuOf[id]!;
    const l = localOf[id]!;
    if (votes === 0) {
      g0 = g;
      l0 = l;
      votes = 1;
    } else if (g === g0 && l === l0) votes++;
    else votes--;
  }
  const odd = scratch.odd;
  odd.length = 0;
  let typical = -1;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (gpuOf[id] !== g0 || localOf[id] !== l0) {
      odd.push(nodes[id]!);
      if (odd.length * 8 > ids.length) return null;
    } else if (typical < 0) typical = id;
  }
  if (typical < 0) return null;
  const hit0 = shared ? Math.max(l0, pool) : l0;
  costsOn(nodes[typical]!, rs, match, shared, g0, l0, hit0);
  const F = lastCosts.fetchSeconds;
  const P = lastCosts.predictedPrefill;
  const fetched0 = hit0 - l0;
  const penalty = tuning.duplicateCopyPenalty;

  const best = scratch.best;
  best.node = null;
  best.score = 0;
  best.fetch = 0;
  best.prefill = 0;
  const stamp = ++scratch.stamp;
  if (scratch.seen.length < nodes.length) scratch.seen = new Int32Array(nodes.length);
  const seen = scratch.seen;
  const consider = (node: SimNode, fetchSeconds: number, predictedPrefill: number, fetchedBlocks: number): number => {
    seen[node.id] = stamp;
    const wait = (node.prefillRunning.length > 0 ? Math.max(0, node.prefillBusyUntil - now) : 0) + node.queuedPredictedSeconds;
    const fetchExcess = Math.max(0, fetchSeconds - wait);
    const score = wait + predictedPrefill + fetchExcess * w + fetchedBlocks * penalty;
    if (best.node === null || score < best.score || (score === best.score && node.id < best.node.id)) {
      best.node = node;
      best.score = score;
      best.fetch = fetchSeconds;
      best.prefill = predictedPrefill;
    }
    return wait;
  };
  for (const n of odd) {
    const g = gpuOf[n.id]!;
    const l = localOf[n.id]!;
    const hit = shared ? Math.max(l, pool) : l;
    costsOn(n, rs, match, shared, g, l, hit);
    consider(n, lastCosts.fetchSeconds, lastCosts.predictedPrefill, hit - l);
  }
  const ix = waitIndex(nodes);
  // The smallest wait of a typical node seen so far (Infinity: none yet).
  let typicalWait = Infinity;
  const visitTypical = (id: number): boolean => {
    if (seen[id] === stamp) return false;
    const n = nodes[id]!;
    if (gpuOf[id] !== g0 || localOf[id] !== l0) return false;
    const wait = consider(n, F, P, fetched0);
    if (wait < typicalWait) typicalWait = wait;
    return false;
  };
  // The lowest-id typical idle node without a queue estimate: it waits 0, as every other such node, which scores the same.
  ix.zero.each(0, (id) => {
    if (gpuOf[id] !== g0 || localOf[id] !== l0) return false;
    visitTypical(id);
    return true;
  });
  const lowest = Math.min(typicalWait, ix.running.min - now, ix.queued.min);
  let bound = listUpTo(ix, Math.max(lowest, F), now, visitTypical);
  if (typicalWait === Infinity) return null;
  const needed = Math.max(typicalWait, F);
  if (needed + eps(needed, now) > bound) bound = listUpTo(ix, needed, now, visitTypical);
  const node = best.node!;
  const g = gpuOf[node.id]!;
  const l = localOf[node.id]!;
  const hit = shared ? Math.max(l, pool) : l;
  return fillPlacement(node, hit, g, hit - g, hit - l, best.fetch, best.prefill);
}

/**
 * Slack on wait bounds: the index's keys (prefillBusyUntil + queue estimate,
 * less now) and the scores differ from the scan's arithmetic by a few units
 * in the last place of the times involved, far below this.
 */
function eps(wait: number, now: number): number {
  return 1e-9 * (1 + Math.abs(wait) + Math.abs(now));
}

/** Visit the nodes of the index that may wait at most `wait` (plus eps); returns the bound used. */
function listUpTo(ix: WaitIndex, wait: number, now: number, visit: (id: number) => boolean): number {
  const bound = wait + eps(wait, now);
  // A running node waits max(0, busyUntil - now) + queued >= key - now.
  ix.running.each(bound + now, visit);
  ix.queued.each(bound, visit);
  return bound;
}

const scratch = {
  odd: [] as SimNode[],
  best: { node: null as SimNode | null, score: 0, fetch: 0, prefill: 0 },
  seen: new Int32Array(0),
  stamp: 0,
};
