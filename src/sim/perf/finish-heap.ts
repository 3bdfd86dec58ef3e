/** What the heap orders by: the boundary where the entry finishes, then its id. */
export interface FinishOrdered {
  readonly id: number;
  readonly finishIter: number;
}

/** Binary min-heap of running entries by (finishIter, id), with removal by position. */
export class FinishHeap<Entry extends FinishOrdered> {
  private items: Entry[] = [];
  private pos = new Map<Entry, number>();

  peek(): Entry | undefined {
    return this.items[0];
  }

  clear(): void {
    this.items = [];
    this.pos.clear();
  }

  push(e: Entry): void {
    this.items.push(e);
    this.pos.set(e, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): Entry | undefined {
    const top = this.items[0];
    if (top) this.remove(top);
    return top;
  }

  remove(e: Entry): void {
    const i = this.pos.get(e);
    if (i === undefined) return;
    this.pos.delete(e);
    const last = this.items.pop()!;
    if (i < this.items.length) {
      this.items[i] = last;
      this.pos.set(last, i);
      this.down(i);
      this.up(i);
    }
  }

  private less(a: Entry, b: Entry): boolean {
    return a.finishIter < b.finishIter || (a.finishIter === b.finishIter && a.id < b.id);
  }

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(items[i]!, items[p]!)) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const items = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && this.less(items[l]!, items[m]!)) m = l;
      if (r < items.length && this.less(items[r]!, items[m]!)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    const x = items[a]!;
    const y = items[b]!;
    items[a] = y;
    items[b] = x;
    this.pos.set(y, a);
    this.pos.set(x, b);
  }
}
