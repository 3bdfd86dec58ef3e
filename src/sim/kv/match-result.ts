/**
 * One tier's per-node prefix counts of a sparse match (match-sparse.ts),
 * without a write per node. A node's count is, in order of precedence:
 * its own entry, set when it left the unbroken set on its own (a few nodes
 * at a time); else the value of the deepest level whose node bits hold it
 * (a level is a snapshot of the unbroken set just before many nodes left it
 * at once, or of the set left at the end of the walk: those nodes' count is
 * that block position); else 0 (it lacked the first block). Levels are
 * nested (the set only shrinks), so the deepest level holding a node is the
 * last point where it was still unbroken and nothing more precise was
 * written. Most requests find the shared system prompt on nearly every
 * node: that is one level, and only the few nodes holding more of the
 * prompt get entries, so a match costs a word per 32 nodes per level rather
 * than a write per node, and so does reading its classes (prefill-indexed.ts).
 * A match that resumes from the saved walk over the system prompt
 * (match-sparse.ts Lead) takes that walk's levels and final set by
 * reference, with their stamps, and the classes' counts per word are kept
 * per stamp: such a match, most of them, touches no word per 32 nodes.
 */
export class TierCounts {
  /** Entry of `node` is valid this match when stamp[node] === tick. */
  private readonly stamp: Int32Array;
  private readonly val: Int32Array;
  private tick = 0;
  /** The nodes with an entry this match (each once). */
  readonly entries: Int32Array;
  entryCount = 0;
  /**
   * Level l: node bits at words [levelOff[l], levelOff[l] + W) of
   * levelSrc[l], value levelValue[l]. The words are this object's own copy
   * (in `own`), or, for a level taken by reference (levelRef), a saved set's
   * or saved counts' words (node-set.ts, SavedCounts), which stay unchanged
   * until the matcher saves its lead again, in a later match: a match whose
   * walk resumes from the saved lead then writes no word per 32 nodes.
   */
  levelSrc: Int32Array[] = [];
  levelOff: Int32Array;
  levelValue: Int32Array;
  /**
   * Level l's content stamp: equal stamps, equal words (the predicted-TTFT
   * classes reuse their counts per word on it, match-classes.ts). An own copy
   * gets a fresh stamp; a level by reference the stamp of the words it refers to.
   */
  levelStamp: Float64Array;
  levelCount = 0;
  private own: Int32Array;
  readonly words: number;

  constructor(readonly nodeCount: number) {
    this.stamp = new Int32Array(nodeCount);
    this.val = new Int32Array(nodeCount);
    this.entries = new Int32Array(nodeCount);
    this.words = (nodeCount + 31) >>> 5;
    this.own = new Int32Array(this.words * 4);
    this.levelOff = new Int32Array(4);
    this.levelValue = new Int32Array(4);
    this.levelStamp = new Float64Array(4);
  }

  /** Forget the last match: every node counts 0. */
  reset(): void {
    if (this.tick === 0x7fffffff) {
      this.stamp.fill(0);
      this.tick = 0;
    }
    this.tick++;
    this.entryCount = 0;
    this.levelCount = 0;
  }

  /** The node's count is i (it is in the unbroken set until i, and written once). */
  set(node: number, i: number): void {
    if (this.stamp[node] !== this.tick) {
      this.stamp[node] = this.tick;
      this.entries[this.entryCount++] = node;
    }
    this.val[node] = i;
  }

  /** The nodes of `mask` (W words), unless written or in a deeper level, count i: a copy of the words, which `mask` may change after. */
  level(mask: Int32Array, i: number): void {
    const W = this.words;
    const l = this.nextLevel();
    if ((l + 1) * W > this.own.length) {
      // Earlier levels keep the old array, which is no longer written.
      const next = new Int32Array(this.own.length * 2);
      next.set(this.own);
      this.own = next;
    }
    this.own.set(mask.subarray(0, W), l * W);
    this.levelSrc[l] = this.own;
    this.levelOff[l] = l * W;
    this.levelValue[l] = i;
    this.levelStamp[l] = freshStamp();
  }

  /** As level(), the W words of `src` at `off`, by reference: the caller keeps them unchanged while this match is read; `stamp` names their content. */
  levelRef(src: Int32Array, off: number, i: number, stamp: number): void {
    const l = this.nextLevel();
    this.levelSrc[l] = src;
    this.levelOff[l] = off;
    this.levelValue[l] = i;
    this.levelStamp[l] = stamp;
  }

  private nextLevel(): number {
    const l = this.levelCount++;
    if (l >= this.levelValue.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
        const next = make(a.length * 2);
        next.set(a);
        return next;
      };
      this.levelOff = grow(this.levelOff, (n) => new Int32Array(n));
      this.levelValue = grow(this.levelValue, (n) => new Int32Array(n));
      this.levelStamp = grow(this.levelStamp, (n) => new Float64Array(n));
    }
    return l;
  }

  /** Copy this match's entries and levels so far into `s`. */
  save(s: SavedCounts): void {
    const n = this.entryCount;
    if (s.nodes.length < n) {
      s.nodes = new Int32Array(this.nodeCount);
      s.values = new Int32Array(this.nodeCount);
    }
    for (let k = 0; k < n; k++) {
      const node = this.entries[k]!;
      s.nodes[k] = node;
      s.values[k] = this.val[node]!;
    }
    s.entryCount = n;
    const W = this.words;
    const L = this.levelCount;
    if (s.levelBits.length < L * W) s.levelBits = new Int32Array(Math.max(L * W, this.own.length));
    if (s.levelValue.length < L) s.levelValue = new Int32Array(this.levelValue.length);
    if (s.levelStamp.length < L) s.levelStamp = new Float64Array(this.levelValue.length);
    for (let l = 0; l < L; l++) {
      const off = this.levelOff[l]!;
      s.levelBits.set(this.levelSrc[l]!.subarray(off, off + W), l * W);
      s.levelValue[l] = this.levelValue[l]!;
      s.levelStamp[l] = freshStamp();
    }
    s.levelCount = L;
  }

  /** After reset(): the entries and levels `save` copied, the levels by reference. */
  load(s: SavedCounts): void {
    for (let k = 0; k < s.entryCount; k++) this.set(s.nodes[k]!, s.values[k]!);
    const W = this.words;
    for (let l = 0; l < s.levelCount; l++) this.levelRef(s.levelBits, l * W, s.levelValue[l]!, s.levelStamp[l]!);
  }

  /** Whether the node has its own entry this match. */
  hasEntry(node: number): boolean {
    return this.stamp[node] === this.tick;
  }

  /** The node's count. */
  value(node: number): number {
    if (this.stamp[node] === this.tick) return this.val[node]!;
    const w = node >>> 5;
    const bit = 1 << (node & 31);
    for (let l = this.levelCount - 1; l >= 0; l--) if ((this.levelSrc[l]![this.levelOff[l]! + w]! & bit) !== 0) return this.levelValue[l]!;
    return 0;
  }

  /** Every node's count, into out (nodeCount entries). */
  fill(out: Int32Array): void {
    out.fill(0, 0, this.nodeCount);
    const W = this.words;
    for (let l = 0; l < this.levelCount; l++) {
      const v = this.levelValue[l]!;
      const bits = this.levelSrc[l]!;
      const off = this.levelOff[l]!;
      for (let w = 0; w < W; w++) {
        let m = bits[off + w]!;
        while (m !== 0) {
          const bit = m & -m;
          out[(w << 5) + 31 - Math.clz32(bit)] = v;
          m ^= bit;
        }
      }
    }
    for (let k = 0; k < this.entryCount; k++) {
      const node = this.entries[k]!;
      out[node] = this.val[node]!;
    }
  }
}

/** Content stamps of level words (TierCounts.levelStamp): each copy of words made gets a new one. Never 0 (match-classes.ts: no level). */
let stamps = 0;
export function freshStamp(): number {
  return ++stamps;
}

/** A TierCounts' entries and levels, saved (match-sparse.ts). */
export class SavedCounts {
  nodes = new Int32Array(0);
  values = new Int32Array(0);
  entryCount = 0;
  levelBits = new Int32Array(0);
  levelValue = new Int32Array(0);
  /** Level l's words' content stamp, new at each save (TierCounts.levelStamp). */
  levelStamp = new Float64Array(0);
  levelCount = 0;
}

/** What the prefill router reads of a sparse match: both tiers' counts, without per-node arrays. */
export interface SparseCounts {
  gpu: TierCounts;
  local: TierCounts;
}
