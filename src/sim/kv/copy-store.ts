/**
 * Copy records: one per (block, node) that is resident in some tier of that
 * node or still counted by a branch. A copy's reference count is shared by
 * its L1 and L2 residency, and so is its eviction key (both tiers are always
 * placed together). Each copy has two tier slots, `slot = copy * 2 + t`
 * (t = 0 for L1, 1 for L2), each recording where it sits in the eviction
 * queues.
 *
 * Records are 64 bytes in one buffer (an Int32Array and a Float64Array view),
 * so that everything about a copy is one cache line: the directory is bound
 * by memory latency, not arithmetic.
 */

/** Int32 offsets in a copy record. */
export const BLOCK = 0;
export const NODE = 1;
export const COUNT = 2;
/** Next free record, while the record is free. */
export const NEXT_FREE = 3;

/** Int32 offsets in a tier slot, from slotBase(). */
export const QUEUE = 0;
/** The run holding the slot's entry, and the entry's position in it. */
export const RUN = 1;
export const POS = 2;

/** QUEUE values other than a queue id. */
export const NOT_RESIDENT = -1;
/** Resident, taken out of the eviction order while an admit re-places it. */
export const DETACHED = -2;
/** Resident, waiting to be requeued in the class its new count implies. */
export const PENDING = -3;

const STRIDE = 16;

/** Int32 offset of a tier slot: copy * 16 + 4 (L1) or + 7 (L2). */
export function slotBase(x: number): number {
  return ((x >> 1) << 4) + 4 + (x & 1) * 3;
}

/** Float64 index of a copy's eviction key (int32 offsets 12-13 of the record). */
export function keyIndex(c: number): number {
  return (c << 3) + 6;
}

export class CopyStore {
  i32: Int32Array;
  f64: Float64Array;
  private capacity: number;
  private freeHead = -1;
  private used = 0;
  private live = 0;

  constructor(initial = 4096) {
    this.capacity = initial;
    const buffer = new ArrayBuffer(initial * STRIDE * 4);
    this.i32 = new Int32Array(buffer);
    this.f64 = new Float64Array(buffer);
  }

  get liveCount(): number {
    return this.live;
  }

  /** Records ever handed out (for full scans in checks). */
  get highWater(): number {
    return this.used;
  }

  /** A fresh record: count 0, resident nowhere. May reallocate: re-read i32/f64 after. */
  alloc(block: number, node: number): number {
    let c = this.freeHead;
    if (c >= 0) {
      this.freeHead = this.i32[(c << 4) + NEXT_FREE]!;
    } else {
      if (this.used === this.capacity) this.grow();
      c = this.used++;
    }
    const i = this.i32;
    const o = c << 4;
    i[o + BLOCK] = block;
    i[o + NODE] = node;
    i[o + COUNT] = 0;
    i[o + NEXT_FREE] = -1;
    i[o + 4 + QUEUE] = NOT_RESIDENT;
    i[o + 7 + QUEUE] = NOT_RESIDENT;
    this.live++;
    return c;
  }

  /** The caller has removed the record from the copy index and both tiers. */
  release(c: number): void {
    const o = c << 4;
    this.i32[o + BLOCK] = -1;
    this.i32[o + NEXT_FREE] = this.freeHead;
    this.freeHead = c;
    this.live--;
  }

  isLive(c: number): boolean {
    return this.i32[(c << 4) + BLOCK]! >= 0;
  }

  private grow(): void {
    this.capacity *= 2;
    const buffer = new ArrayBuffer(this.capacity * STRIDE * 4);
    const i32 = new Int32Array(buffer);
    i32.set(this.i32);
    this.i32 = i32;
    this.f64 = new Float64Array(buffer);
  }
}
