import { grownSize } from './ids.js';

/** Int32 offsets in a block's record. */
export const L1_MASK = 0;
/** Must be L1_MASK + 1: code indexes a tier t (0 or 1) as L1_MASK + t. */
export const L2_MASK = 1;
/** Scratch for holding diffs: a generation mark, and the block's held copy when the mark says it has one. */
export const STAMP = 2;
export const COPY_HINT = 3;

/**
 * Per block id, 16 bytes: which nodes hold it in L1 and in L2 (one bit per
 * node, so prefix matching reads two integers per block) and scratch for
 * holding diffs.
 * Indexed by id directly (ids are dense); grows to the largest id seen.
 * Interleaved so that one block is one cache access.
 */
export class BlockTable {
  data: Int32Array = BlockTable.empty(1024);

  /** Ids below this have a record. */
  get size(): number {
    return this.data.length >> 2;
  }

  ensure(id: number): void {
    if (id < this.size) return;
    const next = BlockTable.empty(grownSize(this.size, id));
    next.set(this.data);
    this.data = next;
  }

  private static empty(blocks: number): Int32Array {
    return new Int32Array(blocks * 4);
  }
}
