import { L2_MASK, type BlockTable } from './block-table.js';

/**
 * Past 31 nodes, node masks per block would cost nodes/8 bytes per tier for
 * every block id ever produced. Most blocks live on a node or two, so they
 * only keep their copy list; a block found on many nodes (a shared system
 * prompt, on every node) gets a row: one bit per node for L1 and for L2, so
 * matching intersects node sets a word (32 nodes) at a time. The row index
 * (+1, 0 = none) sits in the block table's L2_MASK field, unused without
 * masks. A row lives while the block has copies.
 */
/** Small-holder entries per block: a count (or OVERFLOW), then up to SMALL entries of node << 2 | tier bits. */
const SMALL = 7;
export const SMALL_STRIDE = 8;
export const OVERFLOW = -1;

export class HolderRows {
  /**
   * Per block, its resident holders while it has at most SMALL of them, read
   * in one cache line instead of following the copy list from record to
   * record. Past SMALL the block is marked OVERFLOW until its last copy dies
   * (its list, or its row, is read instead).
   */
  small: Int32Array = new Int32Array(SMALL_STRIDE * 4096);

  /** Int32 words per tier in a row. */
  readonly words: number;
  /** Rows of 2 * words: L1 bits, then L2 bits. */
  bits: Int32Array;
  private rowCount = 0;
  private freeRows: number[] = [];
  /** Bumped whenever any row is created, released or changes a bit: a match's walk over rows may be reused while it stays (match-sparse.ts). */
  epoch = 0;

  constructor(
    nodeCount: number,
    private readonly table: BlockTable,
  ) {
    this.words = (nodeCount + 31) >>> 5;
    this.bits = new Int32Array(this.words * 2 * 16);
  }

  /** The block's row (offset of its L1 words in `bits`), or -1. */
  rowOf(block: number): number {
    return this.table.data[(block << 2) + L2_MASK]! - 1;
  }

  /** A new, empty row for the block (which has none); returns its offset. May reallocate `bits`. */
  create(block: number): number {
    this.epoch++;
    let r = this.freeRows.pop();
    if (r === undefined) {
      r = this.rowCount++;
      if ((r + 1) * this.words * 2 > this.bits.length) {
        const next = new Int32Array(this.bits.length * 2);
        next.set(this.bits);
        this.bits = next;
      }
    }
    const o = r * this.words * 2;
    this.bits.fill(0, o, o + this.words * 2);
    this.table.data[(block << 2) + L2_MASK] = o + 1;
    return o;
  }

  /** The block's last copy died: its row is free again, and its small-holder entries restart empty. */
  release(block: number): void {
    if (block * SMALL_STRIDE < this.small.length) this.small[block * SMALL_STRIDE] = 0;
    const o = this.rowOf(block);
    if (o < 0) return;
    this.epoch++;
    this.table.data[(block << 2) + L2_MASK] = 0;
    this.freeRows.push(o / (this.words * 2));
  }

  /** Residency of the block's copy on `node` in tier t (0 = L1) changed. */
  set(block: number, node: number, t: number, resident: boolean): void {
    this.setSmall(block, node, t, resident);
    const o = this.rowOf(block);
    if (o < 0) return;
    this.epoch++;
    const w = o + t * this.words + (node >>> 5);
    if (resident) this.bits[w]! |= 1 << (node & 31);
    else this.bits[w]! &= ~(1 << (node & 31));
  }

  private setSmall(block: number, node: number, t: number, resident: boolean): void {
    const at = block * SMALL_STRIDE;
    if (at >= this.small.length) {
      if (!resident) return;
      // Doubling, as the block table grows (block-table.ts).
      const next = new Int32Array(Math.max(at + SMALL_STRIDE, this.small.length * 2));
      next.set(this.small);
      this.small = next;
    }
    const small = this.small;
    const n = small[at]!;
    if (n === OVERFLOW) return;
    const bit = 1 << t;
    for (let k = 1; k <= n; k++) {
      const e = small[at + k]!;
      if (e >> 2 !== node) continue;
      const bits = resident ? e | bit : e & ~bit;
      if ((bits & 3) !== 0) small[at + k] = bits;
      else {
        small[at + k] = small[at + n]!;
        small[at] = n - 1;
      }
      return;
    }
    if (!resident) return;
    if (n === SMALL) small[at] = OVERFLOW;
    else {
      small[at + n + 1] = (node << 2) | bit;
      small[at] = n + 1;
    }
  }

  get liveRows(): number {
    return this.rowCount - this.freeRows.length;
  }
}
