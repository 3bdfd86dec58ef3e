/**
 * A min segment tree over node ids: the smallest key, and every id whose key
 * is at most a bound, visited in id order, in O(log n) per id visited.
 * Absent ids hold +Infinity.
 */
export class MinTree {
  private readonly size: number;
  private readonly t: Float64Array;
  private readonly stack: Int32Array;

  constructor(n: number) {
    let size = 1;
    while (size < n) size *= 2;
    this.size = size;
    this.t = new Float64Array(2 * size).fill(Infinity);
    this.stack = new Int32Array(64);
  }

  set(id: number, key: number): void {
    let k = id + this.size;
    if (this.t[k] === key) return;
    this.t[k] = key;
    for (k >>= 1; k >= 1; k >>= 1) {
      const l = this.t[2 * k]!;
      const r = this.t[2 * k + 1]!;
      this.t[k] = l < r ? l : r;
    }
  }

  get min(): number {
    return this.t[1]!;
  }

  /** The key of `id` (+Infinity if absent). */
  key(id: number): number {
    return this.t[id + this.size]!;
  }

  /** The lowest id whose key equals the smallest key, or -1 if every id is absent: an argmin with ties to the lowest id, in O(log n). */
  first(): number {
    const t = this.t;
    const min = t[1]!;
    if (min === Infinity) return -1;
    let k = 1;
    while (k < this.size) k = t[2 * k]! === min ? 2 * k : 2 * k + 1;
    return k - this.size;
  }

  /** Calls visit(id) for each id with key <= bound, in id order, until visit returns true. */
  each(bound: number, visit: (id: number) => boolean): void {
    const { t, size, stack } = this;
    if (!(t[1]! <= bound)) return;
    let top = 0;
    stack[top++] = 1;
    while (top > 0) {
      const k = stack[--top]!;
      if (k >= size) {
        if (visit(k - size)) return;
        continue;
      }
      // Right pushed first so that the left child is visited first.
      if (t[2 * k + 1]! <= bound) stack[top++] = 2 * k + 1;
      if (t[2 * k]! <= bound) stack[top++] = 2 * k;
    }
  }
}
