/**
 * Reference counts of one node as a sorted list of id ranges with one count
 * each (count-0 ranges have no entry), kept maximal: neighbouring ranges
 * with equal counts are one. add(first, len, delta) rewrites the window of
 * entries the range touches (with the neighbours either side, to merge),
 * splitting the entries it covers in part, and splices the result back with
 * one copyWithin. Ranges whose count reaches 0 are reported (dropped).
 *
 * Entries are (first, len, count, pad) in one Int32Array per page of
 * 2^PAGE_BITS ids of a node: a range is cut at page boundaries, so the
 * copyWithin of a splice moves one page's entries, not the node's (with
 * one sorted array per node, commit 981e4e6, splices were a fifth of the
 * span engine's profile; paged, the engine replayed bench:sim's log about
 * 10 % faster in one sitting).
 * The window is built in a scratch array: nothing is allocated per call.
 */
import type { Engine } from './ops.js';

const W = 4;
export const PAGE_BITS = 12;

/** Called per range whose count just reached 0. */
export type OnZero = (node: number, first: number, len: number) => void;

export class CountRanges implements Pick<Engine, 'add'> {
  spanOps = 0;
  splits = 0;
  /** Blocks whose count reached 0, over all calls. */
  zeroed = 0;
  onZero: OnZero | null = null;
  /** Per node, per page: the entries (or null), and how many. */
  private readonly data: (Int32Array | null)[][];
  private readonly n: Int32Array[];
  private scratch = new Int32Array(64 * W);
  private outN = 0;
  private node = 0;

  constructor(nodeCount: number) {
    this.data = Array.from({ length: nodeCount }, () => []);
    this.n = Array.from({ length: nodeCount }, () => new Int32Array(64));
  }

  /** The node's ranges as [first, len, count], for checks. */
  rangesOf(node: number): [number, number, number][] {
    const out: [number, number, number][] = [];
    for (const [p, d] of this.data[node]!.entries()) {
      if (!d) continue;
      for (let k = 0; k < this.n[node]![p]!; k++) out.push([d[k * W]!, d[k * W + 1]!, d[k * W + 2]!]);
    }
    return out;
  }

  add(node: number, first: number, len: number, delta: number): void {
    const end = first + len;
    for (let p = first >> PAGE_BITS; p <= (end - 1) >> PAGE_BITS; p++) {
      const a = Math.max(first, p << PAGE_BITS);
      const b = Math.min(end, (p + 1) << PAGE_BITS);
      this.addInPage(node, p, a, b - a, delta);
    }
  }

  private page(node: number, p: number): Int32Array {
    const pages = this.data[node]!;
    let d = pages[p];
    if (!d) {
      while (pages.length <= p) pages.push(null);
      pages[p] = d = new Int32Array(16 * W);
      if (p >= this.n[node]!.length) {
        const bigger = new Int32Array(Math.max(p + 1, this.n[node]!.length * 2));
        bigger.set(this.n[node]!);
        this.n[node] = bigger;
      }
    }
    return d;
  }

  private addInPage(node: number, p: number, first: number, len: number, delta: number): void {
    const d = this.page(node, p);
    const end = first + len;
    // Window: entries ending at or after `first` and starting at or before `end` (touching neighbours included).
    let lo = this.upperBound(d, this.n[node]![p]!, first) - 1;
    if (lo < 0 || d[lo * W]! + d[lo * W + 1]! < first) lo++;
    let hi = lo;
    const size = this.n[node]![p]!;
    while (hi < size && d[hi * W]! <= end) hi++;
    this.outN = 0;
    this.node = node;
    let x = first;
    for (let k = lo; k < hi; k++) {
      const f = d[k * W]!;
      const e = f + d[k * W + 1]!;
      const c = d[k * W + 2]!;
      if (f > x && x < end) {
        const g = f < end ? f : end;
        this.gap(x, g - x, delta);
        x = g;
      }
      if (f < first) this.emit(f, (e < first ? e : first) - f, c);
      const os = f > first ? f : first;
      const oe = e < end ? e : end;
      if (os < oe) {
        this.spanOps++;
        if (f < first || e > end) this.splits++;
        this.emit(os, oe - os, c + delta);
        x = oe;
      }
      if (e > end) {
        const s = f > end ? f : end;
        this.emit(s, e - s, c);
      }
    }
    if (x < end) this.gap(x, end - x, delta);
    this.splice(node, p, lo, hi - lo);
  }

  /** Ids of the range no entry covers: count 0 before, so `delta` after. */
  private gap(first: number, len: number, delta: number): void {
    this.spanOps++;
    if (delta < 0) throw new Error(`kv-span-proto: decrement of uncounted blocks ${first}..${first + len - 1} on node ${this.node}`);
    this.emit(first, len, delta);
  }

  private emit(first: number, len: number, count: number): void {
    if (count === 0) {
      this.zeroed += len;
      if (this.onZero) this.onZero(this.node, first, len);
      return;
    }
    const o = this.outN * W;
    const sc = this.scratch;
    if (o > 0 && sc[o - W + 2] === count && sc[o - W]! + sc[o - W + 1]! === first) {
      sc[o - W + 1]! += len;
      return;
    }
    if (o + W > sc.length) {
      const bigger = new Int32Array(sc.length * 2);
      bigger.set(sc);
      this.scratch = bigger;
    }
    const out = this.scratch;
    out[o] = first;
    out[o + 1] = len;
    out[o + 2] = count;
    this.outN++;
  }

  /** Replace `count` entries at `k` with the scratch's. */
  private splice(node: number, p: number, k: number, count: number): void {
    let d = this.data[node]![p]!;
    const n = this.n[node]![p]!;
    const m = this.outN;
    const size = n - count + m;
    if (size * W > d.length) {
      let cap = d.length;
      while (cap < size * W) cap *= 2;
      const bigger = new Int32Array(cap);
      bigger.set(d.subarray(0, n * W));
      this.data[node]![p] = d = bigger;
    }
    if (m !== count && k + count < n) d.copyWithin((k + m) * W, (k + count) * W, n * W);
    const sc = this.scratch;
    for (let i = 0; i < m * W; i++) d[k * W + i] = sc[i]!;
    this.n[node]![p] = size;
  }

  /** Number of entries whose first id is <= id. */
  private upperBound(d: Int32Array, size: number, id: number): number {
    let lo = 0;
    let n = size;
    while (n > 0) {
      const half = n >>> 1;
      const le = d[(lo + half) * W]! <= id;
      lo = le ? lo + half + 1 : lo;
      n = le ? n - half - 1 : half;
    }
    return lo;
  }
}
