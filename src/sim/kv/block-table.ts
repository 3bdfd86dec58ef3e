/** Slots are added in steps of this many (16 bytes each). */
const GROWTH_QUANTUM = 1 << 16;

/** Int32 offsets in a block's record. */
export const L1_MASK = 0;
/** Must be L1_MASK + 1: code indexes a tier t (0 or 1) as L1_MASK + t. */
export const L2_MASK = 1;
/**
 * With more nodes than a mask has bits (types.ts MASK_NODES), the L1_MASK
 * field instead heads the block's list of copies (copy + 1, 0 = none) and
 * L2_MASK is unused.
 */
export const COPY_LIST = 0;
/** Scratch for holding diffs: a generation mark, and the block's held copy when the mark says it has one. */
export const STAMP = 2;
export const COPY_HINT = 3;

/**
 * Per block slot (slots.ts: a live block's index, reused once it is dead), 16 bytes: which nodes hold it in L1 and in L2 (one bit per
 * node, so prefix matching reads two integers per block; or, past 31 nodes,
 * the head of its copy list) and scratch for holding diffs.
 * Indexed by slot; grows to the most slots in use at once.
 * Interleaved so that one block is one cache access.
 */
export class BlockTable {
  data: Int32Array = BlockTable.empty(1024);
  private gen = 0;

  /** Slots below this have a record. */
  get size(): number {
    return this.data.length >> 2;
  }

  /**
   * Grows by doubling, as the other per-slot tables (holder-rows.ts,
   * lazy-counts.ts). Growing by a quarter kept the table closer to its use,
   * but a large cluster's start-up burst mints slots fast (bench:scale at
   * 1,024 nodes: the holder table grew 29 times to 85 MB), and each growth
   * is a fresh allocation and a copy: with doubling the 1,024-node run gives
   * 19.2k events per CPU second against 17.7k, peak RSS 826 against 831 MB
   * (bench:scale, docs/benchmarks.md, 2026-12-03); nothing changes at 9 nodes.
   */
  ensure(slot: number): void {
    if (slot < this.size) return;
    const wanted = Math.max(slot + 1, this.size * 2);
    const next = BlockTable.empty(Math.ceil(wanted / GROWTH_QUANTUM) * GROWTH_QUANTUM);
    next.set(this.data);
    this.data = next;
  }

  /** Records first .. first + count - 1 start clean (for the blocks a freed slot group goes to next). */
  clear(first: number, count: number): void {
    this.data.fill(0, first << 2, (first + count) << 2);
  }

  /** A fresh generation g for STAMP marks (callers use g, g + 1 and g + 2). */
  nextGen(): number {
    this.gen += 3;
    if (this.gen > 0x3ffffff0) {
      // Wrap before overflow; stamps from before the wrap must not match.
      const data = this.data;
      for (let i = STAMP; i < data.length; i += 4) data[i] = 0;
      this.gen = 3;
    }
    return this.gen;
  }

  private static empty(blocks: number): Int32Array {
    return new Int32Array(blocks * 4);
  }
}
