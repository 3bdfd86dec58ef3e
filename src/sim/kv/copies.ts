import { COPY_LIST, type BlockTable } from './block-table.js';
import { CopyIndex } from './copy-index.js';
import { SlabTable } from './slab-table.js';
import type { HolderRows } from './holder-rows.js';
import { BLOCK, BLOCK_NEXT, BLOCK_PREV, CopyStore, NODE, SLAB_BITS } from './copy-store.js';
import type { BlockSlots } from './slots.js';

const LANE = (1 << SLAB_BITS) - 1;

/**
 * Copy lifecycle: find, create and free the record of (block, node), where
 * a block is its slot (slots.ts), not its id. The
 * index maps (block group, node) to a slab; the block's lane in the slab is
 * its low bits. A walk along consecutive ids asks the index once per slab.
 */
export class Copies {
  readonly store = new CopyStore();
  /** (block group, node) -> slab: a flat table up to MASK_NODES nodes (no lists), a hash table past that. */
  readonly index: Pick<CopyIndex, 'get' | 'add' | 'delete' | 'size'>;
  /** Last slab looked up, for walks along consecutive ids. */
  private lastGroup = -1;
  private lastNode = -1;
  private lastSlab = -1;

  /**
   * With a table, each block's live copies are also linked in a list whose
   * head (copy + 1, 0 = none) sits in the block's COPY_LIST field: with more
   * nodes than mask bits, that list is how matching finds a block's nodes.
   */
  constructor(
    /** Told of every copy made and freed: a block's slot lives while it has copies. */
    private readonly slots: BlockSlots,
    private readonly lists: BlockTable | null = null,
    private readonly rows: HolderRows | null = null,
    nodeCount = 0,
  ) {
    this.index = lists || nodeCount === 0 ? new CopyIndex() : new SlabTable(nodeCount);
  }

  /** The copy of `block` (a slot) on `node`, or -1. */
  find(block: number, node: number): number {
    const s = this.slabOf(block >>> SLAB_BITS, node);
    if (s < 0) return -1;
    const c = (s << SLAB_BITS) | (block & LANE);
    return this.store.i32[(c << 4) + BLOCK] === block ? c : -1;
  }

  /**
   * A new copy (count 0, resident nowhere); it must not exist. May reallocate
   * store arrays. `owned`: the slot already counts this copy (a lazy count
   * the record takes over, lazy-counts.ts).
   */
  create(block: number, node: number, owned = false): number {
    const group = block >>> SLAB_BITS;
    let s = this.slabOf(group, node);
    if (s < 0) {
      s = this.store.allocSlab();
      this.index.add(group, node, s);
      this.lastGroup = group;
      this.lastNode = node;
      this.lastSlab = s;
    }
    const c = (s << SLAB_BITS) | (block & LANE);
    this.store.init(c, block, node);
    if (this.lists) this.link(c, block);
    if (!owned) this.slots.copyAdded(block);
    return c;
  }

  findOrCreate(block: number, node: number): number {
    const c = this.find(block, node);
    return c >= 0 ? c : this.create(block, node);
  }

  free(c: number): void {
    const i32 = this.store.i32;
    const block = i32[(c << 4) + BLOCK]!;
    const group = block >>> SLAB_BITS;
    const node = i32[(c << 4) + NODE]!;
    if (this.lists) this.unlink(c, block);
    if (this.store.release(c)) {
      this.index.delete(group, node);
      if (group === this.lastGroup && node === this.lastNode) this.lastSlab = -1;
    }
    // Last: this may free the block's slot group, which must then have no copy left.
    this.slots.copyRemoved(block);
  }

  /**
   * The slab holding (group, node), or -1. A miss is remembered too: a walk
   * along a prompt on a node without its blocks asks once per group, not per
   * block. Only create() adds a slab, and it updates the memo.
   */
  slabOf(group: number, node: number): number {
    if (group === this.lastGroup && node === this.lastNode) return this.lastSlab;
    const s = this.index.get(group, node);
    this.lastGroup = group;
    this.lastNode = node;
    this.lastSlab = s;
    return s;
  }

  private link(c: number, block: number): void {
    const i32 = this.store.i32;
    const data = this.lists!.data;
    const h = (block << 2) + COPY_LIST;
    const head = data[h]! - 1;
    i32[(c << 4) + BLOCK_NEXT] = head;
    i32[(c << 4) + BLOCK_PREV] = -1;
    if (head >= 0) i32[(head << 4) + BLOCK_PREV] = c;
    data[h] = c + 1;
  }

  private unlink(c: number, block: number): void {
    const i32 = this.store.i32;
    const next = i32[(c << 4) + BLOCK_NEXT]!;
    const prev = i32[(c << 4) + BLOCK_PREV]!;
    if (next >= 0) i32[(next << 4) + BLOCK_PREV] = prev;
    if (prev >= 0) i32[(prev << 4) + BLOCK_NEXT] = next;
    else {
      this.lists!.data[(block << 2) + COPY_LIST] = next + 1;
      if (next < 0) this.rows?.release(block);
    }
  }
}
