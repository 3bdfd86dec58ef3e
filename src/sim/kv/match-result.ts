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
 */
export class TierCounts {
  /** Entry of `node` is valid this match when stamp[node] === tick. */
  private readonly stamp: Int32Array;
  private readonly val: Int32Array;
  private tick = 0;
  /** The nodes with an entry this match (each once). */
  readonly entries: Int32Array;
  entryCount = 0;
  /** Level l: node bits at words [l * W, (l + 1) * W), value levelValue[l]. */
  levelBits: Int32Array;
  levelValue: Int32Array;
  levelCount = 0;
  readonly words: number;

  constructor(readonly nodeCount: number) {
    this.stamp = new Int32Array(nodeCount);
    this.val = new Int32Array(nodeCount);
    this.entries = new Int32Array(nodeCount);
    this.words = (nodeCount + 31) >>> 5;
    this.levelBits = new Int32Array(this.words * 4);
    this.levelValue = new Int32Array(4);
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

  /** The nodes of `mask` (W words), unless written or in a deeper level, count i. */
  level(mask: Int32Array, i: number): void {
    const W = this.words;
    const l = this.levelCount++;
    if ((l + 1) * W > this.levelBits.length) {
      const next = new Int32Array(this.levelBits.length * 2);
      next.set(this.levelBits);
      this.levelBits = next;
      const values = new Int32Array(this.levelValue.length * 2);
      values.set(this.levelValue);
      this.levelValue = values;
    }
    this.levelBits.set(mask.subarray(0, W), l * W);
    this.levelValue[l] = i;
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
    const words = this.levelCount * this.words;
    if (s.levelBits.length < words) s.levelBits = new Int32Array(this.levelBits.length);
    s.levelBits.set(this.levelBits.subarray(0, words));
    if (s.levelValue.length < this.levelCount) s.levelValue = new Int32Array(this.levelValue.length);
    s.levelValue.set(this.levelValue.subarray(0, this.levelCount));
    s.levelCount = this.levelCount;
  }

  /** After reset(): the entries and levels `save` copied. */
  load(s: SavedCounts): void {
    for (let k = 0; k < s.entryCount; k++) this.set(s.nodes[k]!, s.values[k]!);
    const W = this.words;
    for (let l = 0; l < s.levelCount; l++) this.level(s.levelBits.subarray(l * W, (l + 1) * W), s.levelValue[l]!);
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
    const W = this.words;
    for (let l = this.levelCount - 1; l >= 0; l--) if ((this.levelBits[l * W + w]! & bit) !== 0) return this.levelValue[l]!;
    return 0;
  }

  /** Every node's count, into out (nodeCount entries). */
  fill(out: Int32Array): void {
    out.fill(0, 0, this.nodeCount);
    const W = this.words;
    const bits = this.levelBits;
    for (let l = 0; l < this.levelCount; l++) {
      const v = this.levelValue[l]!;
      for (let w = 0; w < W; w++) {
        let m = bits[l * W + w]!;
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

/** A TierCounts' entries and levels, saved (match-sparse.ts). */
export class SavedCounts {
  nodes = new Int32Array(0);
  values = new Int32Array(0);
  entryCount = 0;
  levelBits = new Int32Array(0);
  levelValue = new Int32Array(0);
  levelCount = 0;
}

/** What the prefill router reads of a sparse match: both tiers' counts, without per-node arrays. */
export interface SparseCounts {
  gpu: TierCounts;
  local: TierCounts;
}
