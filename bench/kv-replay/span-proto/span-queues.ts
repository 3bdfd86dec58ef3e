/**
 * Span run-queues: residency and eviction order of every (node, tier) with
 * one record per span of consecutive block ids instead of one per block.
 *
 * A span [first, first + len) was placed in one go, last block first, so
 * block first + j has key newest - j: its oldest block is its deepest. Each
 * (node, tier) has two class queues (refcount order: count 0 first). A
 * queue is, as in src/sim/kv/run-queues.ts, a min-heap of runs keyed by each
 * run's oldest key, a run a linked list of spans in key order. So:
 * - push: a new span appended to the queue's open run, O(1) plus an index insert;
 * - evict: trim the head span of the top run from its deepest end, by as
 *   many blocks as needed (the span is unlinked when empty);
 * - detach / move: split the spans at the range's ends, then unlink (or
 *   relink into the other class's queue, keeping keys) the spans inside.
 * Per (node, tier) a flat table id -> span finds the spans of a range: it
 * is written per block, but as a fill of consecutive int32s (on place,
 * evict, detach and the rare split), not per-block linked-list work. A
 * sorted array of span first ids with binary searches and copyWithin
 * (commit 981e4e6) replayed bench:sim's log as fast, within this
 * machine's noise (4 alternations in one process, 2026-12-02).
 *
 * Typed arrays only; nothing is allocated per operation (arrays grow by
 * doubling). `spanOps` counts the span records each operation visits,
 * splits and creates, for k = time per span op / time per block op.
 */
import type { Engine } from './ops.js';

// Span record: Int32 words (stride 8).
const FIRST = 0;
const LEN = 1;
const NEWEST = 2;
const PREV = 3;
const NEXT = 4;
const RUN = 5;
const QUEUE = 6;
const S = 8;

/** Called per evicted piece: (node * 2 + tier, lowest evicted id, count); ids are evicted highest first. */
export type OnEvict = (nt: number, first: number, len: number) => void;

export class SpanQueues implements Pick<Engine, 'detach' | 'push' | 'fit' | 'move'> {
  spanOps = 0;
  splits = 0;
  evicted = 0;
  onEvict: OnEvict | null = null;
  private rec = new Int32Array(1024 * S);
  private freeSpan = -1;
  private spanHigh = 0;
  private seq = 0;
  // Per run.
  private runHead = new Int32Array(256);
  private runTail = new Int32Array(256);
  private runPos = new Int32Array(256);
  private runKey = new Int32Array(256);
  private freeRun = -1;
  private runHigh = 0;
  // Per queue ((node * 2 + tier) * 2 + class).
  private readonly heaps: Int32Array[];
  private readonly heapLen: Int32Array;
  private readonly open: Int32Array;
  readonly sizes: Int32Array;
  private batchRun = -1;
  private batchQueue = -1;
  // Per (node, tier): resident blocks, capacity, and id -> span + 1 (0: not resident).
  readonly used: Int32Array;
  private readonly cap: Int32Array;
  private readonly own: Int32Array[];

  constructor(nodeCount: number, l1: readonly number[], l2: readonly number[]) {
    const queues = nodeCount * 4;
    this.heaps = Array.from({ length: queues }, () => new Int32Array(16));
    this.heapLen = new Int32Array(queues);
    this.open = new Int32Array(queues);
    this.sizes = new Int32Array(queues);
    for (let q = 0; q < queues; q++) this.open[q] = this.newRun();
    this.used = new Int32Array(nodeCount * 2);
    this.cap = new Int32Array(nodeCount * 2);
    for (let n = 0; n < nodeCount; n++) {
      this.cap[n * 2] = l1[n]!;
      this.cap[n * 2 + 1] = l2[n]!;
    }
    this.own = Array.from({ length: nodeCount * 2 }, () => new Int32Array(1 << 16));
  }

  /** Residents of (node, tier) as [first, len, class] in id order, for checks. */
  spansOf(nt: number): [number, number, number][] {
    const out: [number, number, number][] = [];
    const own = this.own[nt]!;
    for (let id = 0; id < own.length; id++) {
      const s = (own[id]! - 1) * S;
      if (s >= 0 && this.rec[s + FIRST] === id) out.push([id, this.rec[s + LEN]!, this.rec[s + QUEUE]! & 1]);
    }
    return out;
  }

  detach(node: number, first: number, len: number): void {
    for (let nt = node * 2; nt < node * 2 + 2; nt++) {
      const own = this.own[nt]!;
      const end = Math.min(first + len, own.length);
      this.cutAt(nt, first);
      this.cutAt(nt, end);
      const rec = this.rec;
      let removed = 0;
      for (let id = first; id < end; ) {
        const v = own[id]!;
        if (v === 0) {
          id++;
          continue;
        }
        const s = v - 1;
        const l = rec[s * S + LEN]!;
        removed += l;
        this.unlink(s);
        this.freeRecord(s);
        fill(own, 0, id, id + l);
        id += l;
        this.spanOps++;
      }
      this.used[nt]! -= removed;
    }
  }

  push(node: number, first: number, len: number, cls: number): void {
    const newest = this.seq + len;
    this.seq = newest;
    for (let nt = node * 2; nt < node * 2 + 2; nt++) {
      const s = this.allocRecord();
      const rec = this.rec;
      const o = s * S;
      rec[o + FIRST] = first;
      rec[o + LEN] = len;
      rec[o + NEWEST] = newest;
      const q = nt * 2 + cls;
      this.batchRun = -1;
      this.append(s, q, this.open[q]!);
      fill(this.ownFor(nt, first + len), s + 1, first, first + len);
      this.used[nt]! += len;
      this.spanOps++;
    }
  }

  fit(node: number): void {
    for (let nt = node * 2; nt < node * 2 + 2; nt++) {
      let over = this.used[nt]! - this.cap[nt]!;
      if (over <= 0) continue;
      this.used[nt]! -= over;
      this.evicted += over;
      const rec = this.rec;
      while (over > 0) {
        let q = nt * 2;
        if (this.heapLen[q] === 0) q++;
        const r = this.heaps[q]![0]!;
        const s = this.runHead[r]!;
        const o = s * S;
        const l = rec[o + LEN]!;
        const take = l < over ? l : over;
        over -= take;
        this.spanOps++;
        this.sizes[q]! -= take;
        if (this.onEvict) this.onEvict(nt, rec[o + FIRST]! + l - take, take);
        if (take === l) {
          const n = rec[o + NEXT]!;
          if (n >= 0) rec[n * S + PREV] = -1;
          else this.runTail[r] = -1;
          this.headRemoved(q, r, n);
          fill(this.own[nt]!, 0, rec[o + FIRST]!, rec[o + FIRST]! + l);
          this.freeRecord(s);
        } else {
          fill(this.own[nt]!, 0, rec[o + FIRST]! + l - take, rec[o + FIRST]! + l);
          // The deepest blocks go: the span's oldest key, its run's key, grows by `take`.
          rec[o + LEN] = l - take;
          this.runKey[r]! += take;
          this.siftDown(q, this.runPos[r]!, r);
        }
      }
    }
  }

  move(node: number, first: number, len: number, cls: number): void {
    for (let nt = node * 2; nt < node * 2 + 2; nt++) {
      const own = this.own[nt]!;
      const end = Math.min(first + len, own.length);
      this.cutAt(nt, first);
      this.cutAt(nt, end);
      const rec = this.rec;
      const target = nt * 2 + cls;
      this.batchRun = -1;
      // Highest ids first: oldest keys first, so moved spans continue one run.
      for (let id = end - 1; id >= first; ) {
        const v = own[id]!;
        if (v === 0) {
          id--;
          continue;
        }
        const s = v - 1;
        id = rec[s * S + FIRST]! - 1;
        this.spanOps++;
        if (rec[s * S + QUEUE] === target) continue;
        this.unlink(s);
        const key = rec[s * S + NEWEST]! - rec[s * S + LEN]! + 1;
        let r = this.batchRun;
        if (r < 0 || this.batchQueue !== target || !this.takes(r, key)) r = this.takes(this.open[target]!, key) ? this.open[target]! : this.newRun();
        this.append(s, target, r);
        this.batchRun = r;
        this.batchQueue = target;
      }
      this.batchRun = -1;
    }
  }

  /**
   * Split the span of (node, tier) containing `id` (if any, and if `id` is
   * not its first) so that a span starts at `id`.
   */
  private cutAt(nt: number, id: number): void {
    const own = this.own[nt]!;
    if (id >= own.length || own[id] === 0) return;
    const s = own[id]! - 1;
    const rec = this.rec;
    const o = s * S;
    const f = rec[o + FIRST]!;
    const l = rec[o + LEN]!;
    if (f === id) return;
    // s keeps [f, id) and its newest key; s2 takes [id, f + l), older, linked just before s.
    const s2 = this.allocRecord();
    const p = s2 * S;
    const recNow = this.rec;
    recNow[p + FIRST] = id;
    recNow[p + LEN] = f + l - id;
    recNow[p + NEWEST] = recNow[o + NEWEST]! - (id - f);
    recNow[p + QUEUE] = recNow[o + QUEUE]!;
    recNow[p + RUN] = recNow[o + RUN]!;
    recNow[o + LEN] = id - f;
    const before = recNow[o + PREV]!;
    recNow[p + PREV] = before;
    recNow[p + NEXT] = s;
    recNow[o + PREV] = s2;
    // The run's oldest key is unchanged: it is s2's oldest now.
    if (before >= 0) recNow[before * S + NEXT] = s2;
    else this.runHead[recNow[o + RUN]!] = s2;
    fill(own, s2 + 1, id, f + l);
    this.splits++;
    this.spanOps++;
  }

  /** Whether run r can take a span whose oldest key is `key` at its tail. */
  private takes(r: number, key: number): boolean {
    const t = this.runTail[r]!;
    return t < 0 || this.rec[t * S + NEWEST]! < key;
  }

  private append(s: number, q: number, r: number): void {
    const rec = this.rec;
    const o = s * S;
    const t = this.runTail[r]!;
    rec[o + QUEUE] = q;
    rec[o + RUN] = r;
    rec[o + PREV] = t;
    rec[o + NEXT] = -1;
    this.runTail[r] = s;
    this.sizes[q]! += rec[o + LEN]!;
    if (t >= 0) {
      rec[t * S + NEXT] = s;
      return;
    }
    this.runHead[r] = s;
    this.runKey[r] = rec[o + NEWEST]! - rec[o + LEN]! + 1;
    this.heapPush(q, r);
  }

  /** Unlink span s from its run and queue. */
  private unlink(s: number): void {
    const rec = this.rec;
    const o = s * S;
    const p = rec[o + PREV]!;
    const n = rec[o + NEXT]!;
    const r = rec[o + RUN]!;
    const q = rec[o + QUEUE]!;
    this.sizes[q]! -= rec[o + LEN]!;
    if (n < 0) this.runTail[r] = p;
    else rec[n * S + PREV] = p;
    if (p >= 0) rec[p * S + NEXT] = n;
    else this.headRemoved(q, r, n);
  }

  private headRemoved(q: number, r: number, n: number): void {
    this.runHead[r] = n;
    if (n >= 0) {
      this.runKey[r] = this.rec[n * S + NEWEST]! - this.rec[n * S + LEN]! + 1;
      this.siftDown(q, this.runPos[r]!, r);
      return;
    }
    this.heapRemove(q, r);
    if (r !== this.open[q]) this.releaseRun(r);
    if (r === this.batchRun) this.batchRun = -1;
  }

  /** The id table of (node, tier), grown to cover ids below `end`. */
  private ownFor(nt: number, end: number): Int32Array {
    let own = this.own[nt]!;
    if (end <= own.length) return own;
    let size = own.length;
    while (size < end) size *= 2;
    const bigger = new Int32Array(size);
    bigger.set(own);
    this.own[nt] = own = bigger;
    return own;
  }

  // Records, runs and heaps.

  private allocRecord(): number {
    let s = this.freeSpan;
    if (s >= 0) {
      this.freeSpan = this.rec[s * S + NEXT]!;
      return s;
    }
    s = this.spanHigh++;
    if (s * S === this.rec.length) {
      const bigger = new Int32Array(this.rec.length * 2);
      bigger.set(this.rec);
      this.rec = bigger;
    }
    return s;
  }

  private freeRecord(s: number): void {
    this.rec[s * S + NEXT] = this.freeSpan;
    this.rec[s * S + QUEUE] = -1;
    this.freeSpan = s;
  }

  private newRun(): number {
    let r = this.freeRun;
    if (r >= 0) this.freeRun = this.runPos[r]!;
    else {
      r = this.runHigh++;
      if (r === this.runHead.length) {
        const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
          const b = new Int32Array(a.length * 2);
          b.set(a);
          return b;
        };
        this.runHead = grow(this.runHead);
        this.runTail = grow(this.runTail);
        this.runPos = grow(this.runPos);
        this.runKey = grow(this.runKey);
      }
    }
    this.runHead[r] = -1;
    this.runTail[r] = -1;
    this.runPos[r] = -1;
    return r;
  }

  private releaseRun(r: number): void {
    this.runPos[r] = this.freeRun;
    this.freeRun = r;
  }

  private heapPush(q: number, r: number): void {
    let heap = this.heaps[q]!;
    const len = this.heapLen[q]!;
    if (len === heap.length) {
      const bigger = new Int32Array(len * 2);
      bigger.set(heap);
      this.heaps[q] = heap = bigger;
    }
    this.heapLen[q] = len + 1;
    this.siftUp(heap, len, r);
  }

  private heapRemove(q: number, r: number): void {
    const heap = this.heaps[q]!;
    const pos = this.runPos[r]!;
    const last = this.heapLen[q]! - 1;
    this.heapLen[q] = last;
    this.runPos[r] = -1;
    if (pos === last) return;
    const moved = heap[last]!;
    if (pos > 0 && this.runKey[moved]! < this.runKey[heap[(pos - 1) >> 1]!]!) this.siftUp(heap, pos, moved);
    else this.siftDown(q, pos, moved);
  }

  private siftUp(heap: Int32Array, pos: number, r: number): void {
    const key = this.runKey[r]!;
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      const p = heap[parent]!;
      if (this.runKey[p]! <= key) break;
      heap[pos] = p;
      this.runPos[p] = pos;
      pos = parent;
    }
    heap[pos] = r;
    this.runPos[r] = pos;
  }

  private siftDown(q: number, pos: number, r: number): void {
    const heap = this.heaps[q]!;
    const len = this.heapLen[q]!;
    const key = this.runKey[r]!;
    for (;;) {
      let child = 2 * pos + 1;
      if (child >= len) break;
      let childKey = this.runKey[heap[child]!]!;
      if (child + 1 < len) {
        const right = this.runKey[heap[child + 1]!]!;
        if (right < childKey) {
          child++;
          childKey = right;
        }
      }
      if (childKey >= key) break;
      const c = heap[child]!;
      heap[pos] = c;
      this.runPos[c] = pos;
      pos = child;
    }
    heap[pos] = r;
    this.runPos[r] = pos;
  }
}

/** a[from..to) = v: a loop for the short ranges of D holdings, the native fill for prompts. */
function fill(a: Int32Array, v: number, from: number, to: number): void {
  if (to - from > 32) a.fill(v, from, to);
  else for (let i = from; i < to; i++) a[i] = v;
}
