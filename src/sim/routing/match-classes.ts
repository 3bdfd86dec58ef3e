import type { SparseCounts } from '../kv/match-result.js';
import { popcount } from '../kv/node-set.js';

/**
 * The classes of predicted-TTFT routing (prefill-indexed.ts), the nodes
 * sharing one (gpu, local) pair, read off a sparse match (kv/match-result.ts)
 * instead of a pass over the nodes: with at most one level per tier, a node
 * without an entry has one of four pairs (in or out of each tier's level),
 * counted a word (32 nodes) at a time against the accepting nodes' bits; the
 * nodes with an entry (those holding more of the prompt than the shared
 * part, a few) are looked at one by one, and those whose pair is none of the
 * classes are the odd ones, scored one by one. Any split into classes and
 * odd nodes gives the scan's choice (prefill-indexed.ts); this one only has
 * to be found without touching every node.
 */
export interface Classes {
  /** Class c: pair (gpu[c], local[c]); `count` classes. */
  gpu: Int32Array;
  local: Int32Array;
  count: number;
  /** The accepting nodes in no class, `oddCount` of them. */
  odd: Int32Array;
  oddCount: number;
}

/**
 * Fills `out` from the match (accepting nodes: `mask`, node bits) and returns
 * true, or returns false when the match has more than one level in a tier or
 * more than `maxClasses` pairs among nodes without an entry (the caller then
 * reads the per-node arrays).
 */
export function sparseClasses(sp: SparseCounts, mask: Int32Array, maxClasses: number, out: Classes): boolean {
  const G = sp.gpu;
  const L = sp.local;
  if (G.levelCount > 1 || L.levelCount > 1 || mask.length !== G.words) return false;
  const hasG = G.levelCount === 1;
  const hasL = L.levelCount === 1;
  const gBits = hasG ? G.levelSrc[0]! : mask;
  const lBits = hasL ? L.levelSrc[0]! : mask;
  const gOff = hasG ? G.levelOff[0]! : 0;
  const lOff = hasL ? L.levelOff[0]! : 0;
  const counts = scratch.counts;
  const gStamp = hasG ? G.levelStamp[0]! : 0;
  const lStamp = hasL ? L.levelStamp[0]! : 0;
  const memo = scratch.memo;
  if (memo.mask === mask && memo.g === gStamp && memo.l === lStamp) counts.set(memo.counts);
  else {
    countCombinations(mask, hasG ? gBits : null, gOff, hasL ? lBits : null, lOff, counts);
    // Most matches resume from the same saved walk (the same stamps) against the same accepting nodes: the counts per word are the same.
    memo.mask = mask;
    memo.g = gStamp;
    memo.l = lStamp;
    memo.counts.set(counts);
  }
  // Nodes with an entry in either tier (each once): out of their combination, into `odd` for now.
  if (out.odd.length < G.entryCount + L.entryCount) out.odd = new Int32Array(G.entryCount + L.entryCount);
  let n = 0;
  const take = (node: number): void => {
    if ((mask[node >>> 5]! & (1 << (node & 31))) === 0) return;
    const inG = hasG && (gBits[gOff + (node >>> 5)]! & (1 << (node & 31))) !== 0;
    const inL = hasL && (lBits[lOff + (node >>> 5)]! & (1 << (node & 31))) !== 0;
    counts[(inG ? 2 : 0) + (inL ? 1 : 0)]!--;
    out.odd[n++] = node;
  };
  for (let k = 0; k < G.entryCount; k++) take(G.entries[k]!);
  for (let k = 0; k < L.entryCount; k++) if (!G.hasEntry(L.entries[k]!)) take(L.entries[k]!);
  const gv = hasG ? G.levelValue[0]! : 0;
  const lv = hasL ? L.levelValue[0]! : 0;
  let classes = 0;
  for (let k = 3; k >= 0; k--) {
    if (counts[k]! <= 0) continue;
    const g = (k & 2) !== 0 ? gv : 0;
    const l = (k & 1) !== 0 ? lv : 0;
    if (classIndex(out.gpu, out.local, classes, g, l) >= 0) continue;
    if (classes === maxClasses) return false;
    out.gpu[classes] = g;
    out.local[classes] = l;
    classes++;
  }
  out.count = classes;
  // An entry node whose pair is a class's belongs to it.
  let odd = 0;
  for (let k = 0; k < n; k++) {
    const node = out.odd[k]!;
    const g = G.value(node);
    const l = L.value(node);
    if (classIndex(out.gpu, out.local, classes, g, l) < 0) out.odd[odd++] = node;
  }
  out.oddCount = odd;
  return true;
}

/**
 * counts[k], k = 2 * (in the gpu level) + (in the local level): the nodes of
 * `mask` in each combination; a null level holds no node.
 */
function countCombinations(mask: Int32Array, gBits: Int32Array | null, gOff: number, lBits: Int32Array | null, lOff: number, counts: Int32Array): void {
  counts.fill(0);
  for (let w = 0; w < mask.length; w++) {
    const c = mask[w]!;
    if (c === 0) continue;
    const tg = gBits ? gBits[gOff + w]! : 0;
    const tl = lBits ? lBits[lOff + w]! : 0;
    counts[3]! += popcount(c & tg & tl);
    counts[2]! += popcount(c & tg & ~tl);
    counts[1]! += popcount(c & ~tg & tl);
    counts[0]! += popcount(c & ~tg & ~tl);
  }
}

/** The last counts per combination, by the accepting nodes' bits (a new array whenever they change, candidates.ts) and the levels' stamps (0: no level). */
const scratch = { counts: new Int32Array(4), memo: { mask: null as Int32Array | null, g: -1, l: -1, counts: new Int32Array(4) } };

/** The class of the first `count` whose pair is (g, l), or -1. */
export function classIndex(gpu: Int32Array, local: Int32Array, count: number, g: number, l: number): number {
  for (let c = 0; c < count; c++) if (gpu[c] === g && local[c] === l) return c;
  return -1;
}
