import { freshStamp, type TierCounts } from './match-result.js';

/** Below this many members, a set is a list; above it, a row of node bits. */
const LIST_AT = 32;

/**
 * The nodes whose prefix is still unbroken during a sparse match
 * (match-sparse.ts), shrinking block by block. Large sets are rows of bits,
 * intersected a word (32 nodes) at a time; small ones are lists, filtered a
 * member at a time. Nodes that leave get their prefix length written to
 * `out` (match-result.ts): the position of the block they lack, one entry
 * per node when a few leave, a level (the set before) when many leave at once.
 */
export class NodeSet {
  count = 0;
  private isMask = false;
  /** The set's own words. */
  private readonly mask: Int32Array;
  /**
   * The words the set reads while a row: its own, or, after load(), the
   * saved set's (borrowed, not copied), copied into its own before the first
   * change. Levels taken from borrowed words are taken by reference
   * (match-result.ts), with the saved set's stamp.
   */
  private bits: Int32Array;
  private borrowed = false;
  private borrowedStamp = 0;
  private readonly list: Int32Array;
  /** Tick per node, marking one block's holders for list intersections. */
  private readonly seen: Int32Array;
  private tick = 0;

  constructor(nodeCount: number) {
    this.mask = new Int32Array((nodeCount + 31) >>> 5);
    this.bits = this.mask;
    this.list = new Int32Array(nodeCount);
    this.seen = new Int32Array(nodeCount);
  }

  /** The set becomes the block's holders in its row: L1 bits, or (`local`) L1 or L2. */
  startFromRow(bits: Int32Array, row: number, W: number, local: boolean): void {
    let count = 0;
    for (let w = 0; w < W; w++) {
      const h = local ? bits[row + w]! | bits[row + W + w]! : bits[row + w]!;
      this.mask[w] = h;
      count += popcount(h);
    }
    this.count = count;
    this.isMask = true;
    this.bits = this.mask;
    this.borrowed = false;
    if (count <= LIST_AT) this.toList();
  }

  startFromList(nodes: Int32Array, n: number): void {
    this.list.set(nodes.subarray(0, n));
    this.count = n;
    this.isMask = false;
  }

  /** Keep the members holding the block (its row); the others' prefix ends at i. */
  intersectRow(bits: Int32Array, row: number, W: number, local: boolean, out: TierCounts, i: number): void {
    if (this.count === 0) return;
    if (!this.isMask) {
      const list = this.list;
      let kept = 0;
      for (let k = 0; k < this.count; k++) {
        const node = list[k]!;
        const w = node >>> 5;
        const h = local ? bits[row + w]! | bits[row + W + w]! : bits[row + w]!;
        if ((h & (1 << (node & 31))) !== 0) list[kept++] = node;
        else out.set(node, i);
      }
      this.count = kept;
      return;
    }
    let mask = this.bits;
    let leaving = 0;
    for (let w = 0; w < W; w++) {
      const m = mask[w]!;
      if (m === 0) continue;
      const h = local ? bits[row + w]! | bits[row + W + w]! : bits[row + w]!;
      const d = m & ~h;
      if (d !== 0) leaving += popcount(d);
    }
    if (leaving === 0) return;
    // Many leave at once: a level (the set as it was) instead of an entry each.
    const bulk = leaving > LIST_AT;
    if (bulk) this.levelInto(out, i);
    if (this.borrowed) {
      this.mask.set(mask);
      mask = this.bits = this.mask;
      this.borrowed = false;
    }
    for (let w = 0; w < W; w++) {
      const m = mask[w]!;
      if (m === 0) continue;
      const h = local ? bits[row + w]! | bits[row + W + w]! : bits[row + w]!;
      let dropped = m & ~h;
      if (dropped === 0) continue;
      mask[w] = m & h;
      if (bulk) continue;
      while (dropped !== 0) {
        const bit = dropped & -dropped;
        out.set((w << 5) + 31 - Math.clz32(bit), i);
        dropped ^= bit;
      }
    }
    this.count -= leaving;
    if (this.count <= LIST_AT) this.toList();
  }

  /** Keep the members among the block's holders `nodes[0..n)` (each once); the others' prefix ends at i. */
  intersectList(nodes: Int32Array, n: number, out: TierCounts, i: number): void {
    if (this.count === 0) return;
    if (this.isMask) {
      // A large set meets a block on a few nodes: the set as it was is a level, and the holders in it are the new set.
      const mask = this.bits;
      const list = this.list;
      let kept = 0;
      for (let k = 0; k < n; k++) {
        const node = nodes[k]!;
        if ((mask[node >>> 5]! & (1 << (node & 31))) !== 0) list[kept++] = node;
      }
      if (kept < this.count) this.levelInto(out, i);
      this.count = kept;
      this.isMask = false;
      return;
    }
    if (this.tick === 0x7fffffff) {
      this.seen.fill(0);
      this.tick = 0;
    }
    const t = ++this.tick;
    const seen = this.seen;
    for (let k = 0; k < n; k++) seen[nodes[k]!] = t;
    const list = this.list;
    let kept = 0;
    for (let k = 0; k < this.count; k++) {
      const node = list[k]!;
      if (seen[node] === t) list[kept++] = node;
      else out.set(node, i);
    }
    this.count = kept;
  }

  /** The members left: their prefix runs to i. */
  finish(out: TierCounts, i: number): void {
    if (this.isMask) {
      if (this.count > 0) this.levelInto(out, i);
    } else for (let k = 0; k < this.count; k++) out.set(this.list[k]!, i);
    this.count = 0;
    this.isMask = false;
  }

  /** The set as it is now, a row, is a level of `out` at i: by reference while borrowed (the saved set changes only at the matcher's next lead save, in a later match), else copied. */
  private levelInto(out: TierCounts, i: number): void {
    if (this.borrowed) out.levelRef(this.bits, 0, i, this.borrowedStamp);
    else out.level(this.bits, i);
  }

  /** Copy the set's state into `s` (its own arrays, sized for this set). */
  save(s: SavedSet): void {
    s.count = this.count;
    s.isMask = this.isMask;
    s.stamp = freshStamp();
    if (this.isMask) s.mask.set(this.bits);
    else s.list.set(this.list.subarray(0, this.count));
  }

  /** The state `save` left in `s`; a row's words are borrowed, not copied: `s` must not change while this set or a match it wrote is in use. */
  load(s: SavedSet): void {
    this.count = s.count;
    this.isMask = s.isMask;
    if (s.isMask) {
      this.bits = s.mask;
      this.borrowed = true;
      this.borrowedStamp = s.stamp;
    } else {
      this.bits = this.mask;
      this.borrowed = false;
      this.list.set(s.list.subarray(0, s.count));
    }
  }

  private toList(): void {
    maskToList(this.bits, this.list);
    this.isMask = false;
  }
}

/** A NodeSet's state, saved (match-sparse.ts keeps the state after the prompt's leading row blocks). */
export class SavedSet {
  count = 0;
  isMask = false;
  /** The content stamp of `mask`, new at each save (match-result.ts levelStamp). */
  stamp = 0;
  readonly mask: Int32Array;
  readonly list: Int32Array;

  constructor(nodeCount: number) {
    this.mask = new Int32Array((nodeCount + 31) >>> 5);
    this.list = new Int32Array(nodeCount);
  }
}

/** The nodes of the set bits, in `into`; returns how many. */
function maskToList(mask: Int32Array, into: Int32Array): number {
  let n = 0;
  for (let w = 0; w < mask.length; w++) {
    let m = mask[w]!;
    while (m !== 0) {
      const bit = m & -m;
      into[n++] = (w << 5) + 31 - Math.clz32(bit);
      m ^= bit;
    }
  }
  return n;
}

/** Set bits of a 32-bit word. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
