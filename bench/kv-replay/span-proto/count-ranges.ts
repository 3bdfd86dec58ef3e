/**
 * Reference counts of one node as a sorted list of id ranges with one count
 * each (count-0 ranges have no entry), kept maximal: neighbouring ranges
 * with equal counts are one. add(first, len, delta) rewrites the window of
 * entries the range touches (with the neighbours either side, to merge),
 * splitting the entries it covers in part, and splices the result back with
 * one copyWithin. Ranges whose count reaches 0 are reported (dropped).
 *
 * Entries are (first, len, count, pad) in one Int32Array per node; the
 * window is built in a scratch array, so nothing is allocated per call.
 */
import type { Engine } from './ops.js';

const W = 4;

/** Called per range whose count just reached 0. */
export type OnZero = (node: number, first: number, len: number) => void;

export class CountRanges implements Pick<Engine, 'add'> {
  spanOps = 0;
  splits = 0;
  /** Blocks whose count reached 0, over all calls. */
  zeroed = 0;
  onZero: OnZero | null = null;
  private readonly data: Int32Array[];
  private readonly n: Int32Array;
  private scratch = new Int32Array(64 * W);
  private outN = 0;
  private node = 0;

  constructor(nodeCount: number) {
    this.data = Array.from({ length: nodeCount }, () => new Int32Array(256 * W));
    this.n = new Int32Array(nodeCount);
  }

  /** The node's ranges as [first, len, count], for checks. */
  rangesOf(node: number): [number, number, number][] {
    const d = this.data[node]!;
    const out: [number, number, number][] = [];
    for (let k = 0; k < this.n[node]!; k++) out.push([d[k * W]!, d[k * W + 1]!, d[k * W + 2]!]);
    return out;
  }

  countOf(node: number, id: number): number {
    const d = this.data[node]!;
    const k = this.upperBound(node, id) - 1;
    return k >= 0 && d[k * W]! + d[k * W + 1]! > id ? d[k * W + 2]! : 0;
  }

  add(node: number, first: number, len: number, delta: number): void {
    const d = this.data[node]!;
    const end = first + len;
    // Window: entries ending at or after `first` and starting at or before `end` (touching neighbours included).
    let lo = this.upperBound(node, first) - 1;
    if (lo < 0 || d[lo * W]! + d[lo * W + 1]! < first) lo++;
    let hi = lo;
    const size = this.n[node]!;
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
    this.splice(node, lo, hi - lo);
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
  private splice(node: number, k: number, count: number): void {
    let d = this.data[node]!;
    const n = this.n[node]!;
    const m = this.outN;
    const size = n - count + m;
    if (size * W > d.length) {
      let cap = d.length;
      while (cap < size * W) cap *= 2;
      const bigger = new Int32Array(cap);
      bigger.set(d.subarray(0, n * W));
      this.data[node] = d = bigger;
    }
    if (m !== count && k + count < n) d.copyWithin((k + m) * W, (k + count) * W, n * W);
    const sc = this.scratch;
    for (let i = 0; i < m * W; i++) d[k * W + i] = sc[i]!;
    this.n[node] = size;
  }

  /** Number of entries whose first id is <= id. */
  private upperBound(node: number, id: number): number {
    const d = this.data[node]!;
    let lo = 0;
    let n = this.n[node]!;
    while (n > 0) {
      const half = n >>> 1;
      const le = d[(lo + half) * W]! <= id;
      lo = le ? lo + half + 1 : lo;
      n = le ? n - half - 1 : half;
    }
    return lo;
  }
}
