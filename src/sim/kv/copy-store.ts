/**
 * Copy records: one per (block, node) that is resident in some tier of that
 * node or still counted by a branch. A copy's reference count is shared by
 * its L1 and L2 residency, and so is its eviction key (both tiers are always
 * placed together). Each copy has two tier slots, `slot = copy * 2 + t`
 * (t = 0 for L1, 1 for L2), each linked into an eviction queue.
 *
 * Records are 64 bytes in one buffer (an Int32Array and a Float64Array view):
 * everything about a copy is one cache line, and no object per copy.
 */

/** Int32 offsets in a copy record. */
export const BLOCK = 0;
export const NODE = 1;
export const COUNT = 2;
/** In a free slab's first record: the next free slab. */
export const NEXT_FREE = 3;
/**
 * With more nodes than a mask has bits: the copy's neighbours in its block's
 * list of copies (-1: none). Int32 offsets 12-13 hold the eviction key.
 */
export const BLOCK_NEXT = 14;
export const BLOCK_PREV = 15;

/** Int32 offsets in a tier slot, from slotBase(): its queue, its run, and its neighbours in the run. */
export const QUEUE = 0;
export const RUN = 1;
export const PREV = 2;
export const NEXT = 3;

/** QUEUE values other than a queue id. */
export const NOT_RESIDENT = -1;
/** Resident, taken out of the eviction order while an admit re-places it. */
export const DETACHED = -2;

const STRIDE = 16;

/** Int32 offset of a tier slot: copy * 16 + 4 (L1) or + 8 (L2). */
export function slotBase(x: number): number {
  return ((x >> 1) << 4) + 4 + ((x & 1) << 2);
}

/** Float64 index of a copy's eviction key (int32 offsets 12-13 of the record). */
export function keyIndex(c: number): number {
  return (c << 3) + 6;
}

/** Copies are allocated in slabs of SLAB consecutive block ids on one node: copy = slab * SLAB + (block % SLAB). */
export const SLAB_BITS = 3;
export const SLAB = 1 << SLAB_BITS;

/**
 * Prompts are runs of consecutive block ids, so the copies a call touches on
 * a node are mostly neighbours in one slab: adjacent records in memory, found
 * with one index lookup per slab instead of one per block.
 */
export class CopyStore {
  i32: Int32Array;
  f64: Float64Array;
  /** Live copies per slab; a slab is released when it drops to 0. */
  private slabLive: Int32Array;
  private slabCapacity: number;
  private freeSlab = -1;
  private usedSlabs = 0;
  private live = 0;

  constructor(initialSlabs = 512) {
    this.slabCapacity = initialSlabs;
    const buffer = new ArrayBuffer(initialSlabs * SLAB * STRIDE * 4);
    this.i32 = new Int32Array(buffer);
    this.f64 = new Float64Array(buffer);
    this.slabLive = new Int32Array(initialSlabs);
  }

  get liveCount(): number {
    return this.live;
  }

  /** Records ever handed out (for full scans in checks). */
  get highWater(): number {
    return this.usedSlabs * SLAB;
  }

  /** A slab of free records. May reallocate: re-read i32/f64 after. */
  allocSlab(): number {
    let s = this.freeSlab;
    if (s >= 0) {
      this.freeSlab = this.i32[(s << (SLAB_BITS + 4)) + NEXT_FREE]!;
    } else {
      if (this.usedSlabs === this.slabCapacity) this.grow();
      s = this.usedSlabs++;
      // Marked free when first handed out, not when the store grows: records past highWater are never read.
      markFree(this.i32, s << (SLAB_BITS + 4), (s + 1) << (SLAB_BITS + 4));
    }
    // Its records are marked free (BLOCK = -1): above, or by release().
    this.slabLive[s] = 0;
    return s;
  }

  /** Copy c (in an allocated slab) becomes live: count 0, resident nowhere. */
  init(c: number, block: number, node: number): void {
    const i = this.i32;
    const o = c << 4;
    i[o + BLOCK] = block;
    i[o + NODE] = node;
    i[o + COUNT] = 0;
    i[o + 4 + QUEUE] = NOT_RESIDENT;
    i[o + 8 + QUEUE] = NOT_RESIDENT;
    this.slabLive[c >> SLAB_BITS]!++;
    this.live++;
  }

  /** Copy c dies; returns true when its slab is now empty (and released). */
  release(c: number): boolean {
    this.i32[(c << 4) + BLOCK] = -1;
    this.live--;
    const s = c >> SLAB_BITS;
    if (--this.slabLive[s]! > 0) return false;
    this.i32[(s << (SLAB_BITS + 4)) + NEXT_FREE] = this.freeSlab;
    this.freeSlab = s;
    return true;
  }

  isLive(c: number): boolean {
    return this.i32[(c << 4) + BLOCK]! >= 0;
  }

  private grow(): void {
    this.slabCapacity *= 2;
    const buffer = new ArrayBuffer(this.slabCapacity * SLAB * STRIDE * 4);
    const i32 = new Int32Array(buffer);
    i32.set(this.i32);
    this.i32 = i32;
    this.f64 = new Float64Array(buffer);
    const live = new Int32Array(this.slabCapacity);
    live.set(this.slabLive);
    this.slabLive = live;
  }
}

/** Mark the records between int32 offsets `from` and `to` as free. */
function markFree(i32: Int32Array, from: number, to: number): void {
  for (let o = from + BLOCK; o < to; o += STRIDE) i32[o] = -1;
}
