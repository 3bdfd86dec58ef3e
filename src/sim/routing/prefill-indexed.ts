import type { PrefixMatch } from '../kv/index.js';
import type { PrefillTuning } from '../mechanics.js';
import type { SimNode } from '../node.js';
import type { RequestState } from '../request-state.js';
import { prefillCandidateIds } from './candidates.js';
import { classIndex, sparseClasses, type Classes } from './match-classes.js';
import { costsOn, fillPlacement, lastCosts, type PrefillPlacement } from './prefix.js';
import { waitIndex, type WaitIndex } from './wait-index.js';

/**
 * predicted-TTFT routing without scoring every node: the same winner as
 * predictedTtftScan (prefill-scan.ts), which scores every accepting node.
 *
 * A request's match is the same on most nodes: every node holds the shared
 * system prompt, and only a few hold more of the prompt. Nodes with the same
 * (gpu, local) counts form a class (one kind and engine model throughout):
 * they share the fetch time F, the predicted prefill P and the fetched
 * blocks, so their score is a function of their wait alone:
 *   g(wait) = wait + P + w * max(0, F - wait) + fetched * penalty,
 * non-decreasing for w <= 1. Up to MAX_CLASSES classes are taken: off a
 * sparse match's levels and entries (match-classes.ts) without a pass over
 * the nodes, or else the largest ones by majority votes over the match's
 * arrays, so that the transient where a prefix
 * spreads over the cluster (two classes of about equal size: those that hold
 * it and those that do not yet) is covered too; the other nodes are scored
 * one by one. Within a class, only the nodes whose wait is within eps of
 * max(wait_r, F), for a node r of the class, can reach r's score up to
 * rounding: the wait index (wait-index.ts) lists them (idle nodes with no
 * queue estimate all wait exactly 0 and score the same, so only the lowest id
 * of them per class counts). A class none of whose nodes is listed is left
 * out only if its nodes' score, bounded below by the listing bound, is above
 * the best score found. Every node listed is scored exactly as the scan
 * scores it, and ties go to the lowest id, so the choice is the scan's.
 *
 * Returns null when the case is not covered (several kinds or engine models
 * among the accepting nodes, w > 1, many nodes outside the classes, or a
 * class that might win and has no node among the smallest waits): the
 * caller scans.
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
  const { ids, mask, uniform } = prefillCandidateIds(nodes);
  if (!uniform || ids.length !== candidates.length) return null;
  const { pool } = match;
  const cls = scratch.classes;
  // The per-node counts: off the sparse match's levels and entries, else the match's arrays.
  let gpuOf: (id: number) => number;
  let localOf: (id: number) => number;
  let odd: { ids: Int32Array; count: number };
  let classes: number;
  const sp = match.sparse;
  const found = scratch.found;
  if (sp && sparseClasses(sp, mask, MAX_CLASSES, found)) {
    gpuOf = (id) => sp.gpu.value(id);
    localOf = (id) => sp.local.value(id);
    classes = found.count;
    for (let c = 0; c < classes; c++) {
      cls.gpu[c] = found.gpu[c]!;
      cls.local[c] = found.local[c]!;
    }
    odd = scratch.odd;
    odd.ids = found.odd;
    odd.count = found.oddCount;
  } else {
    const gpuArr = match.gpu;
    const localArr = match.local;
    gpuOf = (id) => gpuArr[id]!;
    localOf = (id) => localArr[id]!;
    if (scratch.oddA.length < ids.length) {
      scratch.oddA = new Int32Array(ids.length);
      scratch.oddB = new Int32Array(ids.length);
    }
    // The most common (gpu, local) pair, then the most common among the nodes off it, and so on.
    odd = majority(ids, ids.length, gpuArr, localArr, 0, scratch.oddA);
    let k = 1;
    for (; k < MAX_CLASSES && odd.count * 8 > ids.length; k++) {
      odd = majority(odd.ids, odd.count, gpuArr, localArr, k, odd.ids === scratch.oddA ? scratch.oddB : scratch.oddA);
    }
    classes = k;
  }
  if (odd.count * 8 > ids.length) return null;
  const penalty = tuning.duplicateCopyPenalty;
  // Any accepting node asks the costs of a class: one kind and engine model throughout.
  const rep = nodes[ids[0]!]!;
  let maxF = 0;
  for (let c = 0; c < classes; c++) {
    const hit = shared ? Math.max(cls.local[c]!, pool) : cls.local[c]!;
    costsOn(rep, rs, match, shared, cls.gpu[c]!, cls.local[c]!, hit);
    cls.fetch[c] = lastCosts.fetchSeconds;
    cls.prefill[c] = lastCosts.predictedPrefill;
    cls.fetched[c] = hit - cls.local[c]!;
    cls.wait[c] = Infinity;
    if (cls.fetch[c]! > maxF) maxF = cls.fetch[c]!;
  }

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
  for (let i = 0; i < odd.count; i++) {
    const n = nodes[odd.ids[i]!]!;
    const g = gpuOf(n.id);
    const l = localOf(n.id);
    const hit = shared ? Math.max(l, pool) : l;
    costsOn(n, rs, match, shared, g, l, hit);
    consider(n, lastCosts.fetchSeconds, lastCosts.predictedPrefill, hit - l);
  }
  const classOf = (id: number): number => classIndex(cls.gpu, cls.local, classes, gpuOf(id), localOf(id));
  const ix = waitIndex(nodes);
  const visitClass = (id: number): boolean => {
    if (seen[id] === stamp) return false;
    const c = classOf(id);
    if (c < 0) return false;
    const wait = consider(nodes[id]!, cls.fetch[c]!, cls.prefill[c]!, cls.fetched[c]!);
    if (wait < cls.wait[c]!) cls.wait[c] = wait;
    return false;
  };
  // The lowest-id idle node without a queue estimate of each class: it waits 0, as every other such node of its class, which scores the same.
  let zeroLeft = classes;
  let zeroVisits = 0;
  let zeroCut = false;
  ix.zero.each(0, (id) => {
    if (++zeroVisits > MAX_ZERO_VISITS) {
      zeroCut = true;
      return true;
    }
    const c = classOf(id);
    if (c < 0 || cls.wait[c] === 0) return false;
    visitClass(id);
    return --zeroLeft === 0;
  });
  let lowest = Math.min(ix.running.min - now, ix.queued.min);
  for (let c = 0; c < classes; c++) if (cls.wait[c]! < lowest) lowest = cls.wait[c]!;
  // Every node waiting at most `listed` has been scored; `bound` is the key bound that listing used.
  let listed = Math.max(lowest, maxF);
  let bound = listUpTo(ix, listed, now, visitClass);
  for (let round = 0; ; round++) {
    // Each class's nodes up to max(its smallest wait, its F), or, for a class none of whose nodes is listed, up to the wait past which none can win.
    let needed = -Infinity;
    let open = false;
    for (let c = 0; c < classes; c++) {
      const wc = cls.wait[c]!;
      // Idle nodes of the class past the cut of the zero listing (if any) score exactly g(0).
      if (zeroCut && wc !== 0 && !(zeroScore(c, w, penalty) > best.score)) return null;
      if (wc !== Infinity) {
        needed = Math.max(needed, wc, cls.fetch[c]!);
        continue;
      }
      if (best.node === null) return null;
      // Its nodes wait more than `listed` >= F: they score at least listed + P + fetched * penalty.
      const extra = cls.prefill[c]! + cls.fetched[c]! * penalty;
      const floor = listed + extra;
      if (floor - eps(floor, now) > best.score) continue;
      // Past this wait, a node of the class scores more than the best so far.
      needed = Math.max(needed, best.score - extra + 2 * eps(best.score, now));
      open = true;
    }
    if (needed + eps(needed, now) > bound) {
      bound = listUpTo(ix, needed, now, visitClass);
      listed = Math.max(listed, needed);
    } else if (!open) break;
    if (round === 2) return null;
  }
  const node = best.node!;
  const g = gpuOf(node.id);
  const l = localOf(node.id);
  const hit = shared ? Math.max(l, pool) : l;
  return fillPlacement(node, hit, g, hit - g, hit - l, best.fetch, best.prefill);
}

/** Classes of nodes scored through the wait index per request: room for the spread of a prefix (two) and a little more. */
const MAX_CLASSES = 3;
/** Idle nodes looked at for the lowest idle id of each class before giving up on a class that has none. */
const MAX_ZERO_VISITS = 64;

/** The score of an idle node of class `c` without a queue estimate (wait exactly 0), as consider() computes it. */
function zeroScore(c: number, w: number, penalty: number): number {
  const cls = scratch.classes;
  const wait = 0;
  const fetchExcess = Math.max(0, cls.fetch[c]! - wait);
  return wait + cls.prefill[c]! + fetchExcess * w + cls.fetched[c]! * penalty;
}

/**
 * Class `c`: the (gpu, local) pair most common among the first `count` of
 * `ids` (a majority vote: the pair itself if it is held by more than half of
 * them), stored in scratch.classes; returns the ids off it, in order, in
 * `into` (as long as `ids`).
 */
function majority(ids: Int32Array, count: number, gpuOf: Int32Array, localOf: Int32Array, c: number, into: Int32Array): { ids: Int32Array; count: number } {
  let g0 = 0;
  let l0 = 0;
  let votes = 0;
  for (let i = 0; i < count; i++) {
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
  scratch.classes.gpu[c] = g0;
  scratch.classes.local[c] = l0;
  let off = 0;
  for (let i = 0; i < count; i++) {
    const id = ids[i]!;
    if (gpuOf[id] !== g0 || localOf[id] !== l0) into[off++] = id;
  }
  const out = scratch.odd;
  out.ids = into;
  out.count = off;
  return out;
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
  /** Two buffers for the ids off the classes so far (majority() reads one and fills the other). */
  oddA: new Int32Array(0) as Int32Array,
  oddB: new Int32Array(0) as Int32Array,
  odd: { ids: new Int32Array(0) as Int32Array, count: 0 },
  /** The classes read off a sparse match (match-classes.ts). */
  found: { gpu: new Int32Array(MAX_CLASSES), local: new Int32Array(MAX_CLASSES), count: 0, odd: new Int32Array(0), oddCount: 0 } as Classes,
  classes: {
    gpu: new Int32Array(MAX_CLASSES),
    local: new Int32Array(MAX_CLASSES),
    fetch: new Float64Array(MAX_CLASSES),
    prefill: new Float64Array(MAX_CLASSES),
    fetched: new Int32Array(MAX_CLASSES),
    /** The smallest wait of a listed node of the class (Infinity: none yet). */
    wait: new Float64Array(MAX_CLASSES),
  },
  best: { node: null as SimNode | null, score: 0, fetch: 0, prefill: 0 },
  seen: new Int32Array(0),
  stamp: 0,
};
