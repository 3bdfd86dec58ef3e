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
export class HolderRows {
  /** Int32 words per tier in a row. */
  readonly words: number;
  /** Rows of 2 * words: L1 bits, then L2 bits. */
  bits: Int32Array;
  private rowCount = 0;
  private freeRows: number[] = [];

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

  /** The block's last copy died: its row is free again. */
  release(block: number): void {
    const o = this.rowOf(block);
    if (o < 0) return;
    this.table.data[(block << 2) + L2_MASK] = 0;
    this.freeRows.push(o / (this.words * 2));
  }

  /** Residency of the block's copy on `node` in tier t (0 = L1) changed; no-op without a row. */
  set(block: number, node: number, t: number, resident: boolean): void {
    const o = this.rowOf(block);
    if (o < 0) return;
    const w = o + t * this.words + (node >>> 5);
    if (resident) this.bits[w]! |= 1 << (node & 31);
    else this.bits[w]! &= ~(1 << (node & 31));
  }

  get liveRows(): number {
    return this.rowCount - this.freeRows.length;
  }
}
