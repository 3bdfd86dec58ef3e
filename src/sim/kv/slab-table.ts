/**
 * (block group, node) -> copy slab as a flat array indexed by
 * group * nodeCount + node: the CopyIndex (copy-index.ts) without hashing,
 * for clusters of up to MASK_NODES nodes. A lookup is one read, and a
 * prompt's consecutive groups are neighbouring entries, where the hash
 * table's probes land anywhere. Groups are slot groups (slots.ts), which are
 * reused, so the array grows with the most live blocks at once, 4 bytes per
 * node per 8 blocks.
 */
const GROWTH_QUANTUM = 1 << 12;

export class SlabTable {
  /** Per (group, node): slab + 1, 0 = none (so fresh memory is empty). */
  private slabs: Int32Array;
  private count = 0;

  constructor(private readonly nodeCount: number) {
    this.slabs = new Int32Array(GROWTH_QUANTUM * nodeCount);
  }

  get size(): number {
    return this.count;
  }

  /** The slab of (group, node), or -1. */
  get(group: number, node: number): number {
    const i = group * this.nodeCount + node;
    return i < this.slabs.length ? this.slabs[i]! - 1 : -1;
  }

  /** The key must be absent. */
  add(group: number, node: number, slab: number): void {
    const i = group * this.nodeCount + node;
    if (i >= this.slabs.length) this.grow(group);
    this.slabs[i] = slab + 1;
    this.count++;
  }

  /** The key must be present. */
  delete(group: number, node: number): void {
    this.slabs[group * this.nodeCount + node] = 0;
    this.count--;
  }

  /** By a quarter at least, like the block table: slot groups grow slowly once a run is warm. */
  private grow(group: number): void {
    const groups = this.slabs.length / this.nodeCount;
    const wanted = Math.max(group + 1, Math.ceil(groups * 1.25));
    const next = new Int32Array(Math.ceil(wanted / GROWTH_QUANTUM) * GROWTH_QUANTUM * this.nodeCount);
    next.set(this.slabs);
    this.slabs = next;
  }
}
