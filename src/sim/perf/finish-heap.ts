/** What the heap orders by: the boundary where the entry finishes, then its id. */
export interface FinishOrdered {
  readonly id: number;
  readonly finishIter: number;
  /**
   * The entry's position in the heap, -1 when in none; written by the heap
   * only. Kept on the entry rather than in a Map from entry to position:
   * every sift step moved two positions, and the Map's hashing was most of
   * the heap's cost (one push and one removal per decoded request).
   */
  heapIndex: number;
}

/** Binary min-heap of running entries by (finishIter, id), with removal by position. An entry is in at most one heap. */
export class FinishHeap<Entry extends FinishOrdered> {
  private items: Entry[] = [];

  peek(): Entry | undefined {
    return this.items[0];
  }

  clear(): void {
    for (const e of this.items) e.heapIndex = -1;
    this.items = [];
  }

  push(e: Entry): void {
    this.items.push(e);
    this.up(e, this.items.length - 1);
  }

  pop(): Entry | undefined {
    const top = this.items[0];
    if (top) this.remove(top);
    return top;
  }

  /** Takes the entry out; an entry in no heap is left as it is. */
  remove(e: Entry): void {
    const i = e.heapIndex;
    if (i < 0) return;
    e.heapIndex = -1;
    const last = this.items.pop()!;
    if (i < this.items.length) {
      // The last entry fills the hole and moves down or up to its place.
      this.down(last, i);
      if (last.heapIndex === i) this.up(last, i);
    }
  }

  private less(a: Entry, b: Entry): boolean {
    return a.finishIter < b.finishIter || (a.finishIter === b.finishIter && a.id < b.id);
  }

  /** Place `e` at hole `i` or above: parents that order after it move down. */
  private up(e: Entry, i: number): void {
    const items = this.items;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = items[p]!;
      if (!this.less(e, parent)) break;
      items[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    items[i] = e;
    e.heapIndex = i;
  }

  /** Place `e` at hole `i` or below: the smaller child moves up while it orders before `e`. */
  private down(e: Entry, i: number): void {
    const items = this.items;
    const n = items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && this.less(items[r]!, items[l]!) ? r : l;
      const child = items[m]!;
      if (!this.less(child, e)) break;
      items[i] = child;
      child.heapIndex = i;
      i = m;
    }
    items[i] = e;
    e.heapIndex = i;
  }
}
