/**
 * A min-heap of timed items; ties leave in insertion order, so that runs are
 * deterministic whatever the heap's internal layout.
 */
export class EventHeap<T> {
  private readonly times: number[] = [];
  private readonly seqs: number[] = [];
  private readonly items: T[] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  peekTime(): number {
    return this.items.length ? this.times[0]! : Infinity;
  }

  push(time: number, item: T): void {
    this.times.push(time);
    this.seqs.push(this.seq++);
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  pop(): { time: number; item: T } | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const top = { time: this.times[0]!, item: this.items[0]! };
    this.move(n - 1, 0);
    this.times.pop();
    this.seqs.pop();
    this.items.pop();
    if (this.items.length) this.down(0);
    return top;
  }

  private less(i: number, j: number): boolean {
    const a = this.times[i]!;
    const b = this.times[j]!;
    return a < b || (a === b && this.seqs[i]! < this.seqs[j]!);
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from]!;
    this.seqs[to] = this.seqs[from]!;
    this.items[to] = this.items[from]!;
  }

  private swap(i: number, j: number): void {
    [this.times[i], this.times[j]] = [this.times[j]!, this.times[i]!];
    [this.seqs[i], this.seqs[j]] = [this.seqs[j]!, this.seqs[i]!];
    [this.items[i], this.items[j]] = [this.items[j]!, this.items[i]!];
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) return;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
