/**
 * Memory of signal inference: the recently used branches with the full-block
 * ids of their last prompt, indexed by block, and the blocks known to be
 * shared by unrelated branches. Bounded: past `capacity` branches the least
 * recently used one is forgotten, so a very long trace costs a bounded
 * amount of memory and a request can only continue a branch seen recently.
 */

export interface RememberedBranch {
  readonly id: number;
  version: number;
  /** Full-block ids of the branch's last prompt. */
  blocks: number[];
  /** When its last request completes under the nominal service model: it issues nothing before. */
  busyUntil: number;
  /** Larger is more recent. */
  lastUse: number;
}

export class BranchTable {
  /** In order of last use, least recent first (a Map keeps insertion order). */
  private readonly branches = new Map<number, RememberedBranch>();
  /** Block id -> the remembered branches whose last prompt holds it. */
  private readonly holders = new Map<number, Set<RememberedBranch>>();
  private readonly shared = new Set<number>();
  private clock = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.branches.size;
  }

  /**
   * Leading blocks of `blocks` that some remembered branch holds. Ids are
   * chained, so a held id at position i means the first i+1 blocks match.
   */
  prefixLength(blocks: readonly number[]): number {
    let k = 0;
    while (k < blocks.length && this.holders.has(blocks[k]!)) k++;
    return k;
  }

  isShared(block: number): boolean {
    return this.shared.has(block);
  }

  /** Blocks that two unrelated branches both start with (a system prompt, a common document). */
  markShared(blocks: readonly number[], count: number): void {
    for (let i = 0; i < count; i++) this.shared.add(blocks[i]!);
  }

  /** The most recently used branch whose last prompt has `block` at `position` and that passes `accept`. */
  latestHolder(block: number, position: number, accept: (b: RememberedBranch) => boolean): RememberedBranch | undefined {
    let best: RememberedBranch | undefined;
    for (const b of this.holders.get(block) ?? []) {
      if (b.blocks[position] === block && accept(b) && (!best || b.lastUse > best.lastUse)) best = b;
    }
    return best;
  }

  /** Remember a new branch; forgets the least recently used one past capacity. */
  add(id: number, blocks: number[], busyUntil: number): RememberedBranch {
    const b: RememberedBranch = { id, version: 0, blocks: [], busyUntil, lastUse: 0 };
    this.branches.set(id, b);
    this.use(b, blocks, busyUntil);
    if (this.branches.size > this.capacity) this.forget(this.branches.values().next().value!);
    return b;
  }

  /** The branch issued a request with this prompt: it is now its last prompt, and the branch the most recent. */
  use(b: RememberedBranch, blocks: number[], busyUntil: number): void {
    const keep = new Set(blocks);
    for (const id of b.blocks) if (!keep.has(id)) this.unhold(id, b);
    for (const id of blocks) {
      let set = this.holders.get(id);
      if (!set) this.holders.set(id, (set = new Set()));
      set.add(b);
    }
    b.blocks = blocks;
    b.busyUntil = busyUntil;
    b.lastUse = ++this.clock;
    this.branches.delete(b.id);
    this.branches.set(b.id, b);
  }

  private forget(b: RememberedBranch): void {
    this.branches.delete(b.id);
    for (const id of b.blocks) this.unhold(id, b);
  }

  private unhold(id: number, b: RememberedBranch): void {
    const set = this.holders.get(id);
    if (!set) return;
    set.delete(b);
    if (set.size === 0) {
      // No remembered branch holds it any more: what was known about it goes too, keeping memory bounded.
      this.holders.delete(id);
      this.shared.delete(id);
    }
  }
}
