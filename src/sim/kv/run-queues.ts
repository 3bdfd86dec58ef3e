import { keyIndex, NEXT, PREV, QUEUE, RUN, slotBase, type CopyStore } from './copy-store.js';

/**
 * Exact eviction order for many queues over the tier slots of a CopyStore.
 * A queue holds slots ordered by their copy's key (the access sequence
 * number); the smallest goes first.
 *
 * A queue is a set of sorted runs (doubly linked lists) in a min-heap keyed
 * by each run's head. Fresh accesses carry the newest key and append to the
 * queue's open run in O(1). Slots that change class (a count reaching or
 * leaving 0) keep their older keys and move to the other class's queue; they
 * change class a holding at a time, and a holding's copies were placed
 * together, so they move as whole segments of a run: one splice out, one
 * splice in, one heap insertion at most. Evicting takes the head of the top
 * run and re-sifts only that run, O(log runs).
 */
export class RunQueues {
  // Per run.
  private runHead: Int32Array = new Int32Array(64);
  private runTail: Int32Array = new Int32Array(64);
  private runPos: Int32Array = new Int32Array(64);
  /** Key of each run's head, cached so heap comparisons stay off the copy records. */
  private runKeys: Float64Array = new Float64Array(64);
  private freeRun = -1;
  private runHighWater = 0;
  private liveRuns = 0;

  // Per queue.
  private readonly heaps: Int32Array[];
  private readonly heapLen: Int32Array;
  private readonly open: Int32Array;
  private readonly sizes: Int32Array;

  // The run that the current batch of segment moves is extending, and its queue.
  private batchRun = -1;
  private batchQueue = -1;

  constructor(
    private readonly store: CopyStore,
    queueCount: number,
  ) {
    this.heaps = Array.from({ length: queueCount }, () => new Int32Array(8));
    this.heapLen = new Int32Array(queueCount);
    this.sizes = new Int32Array(queueCount);
    this.open = new Int32Array(queueCount);
    for (let q = 0; q < queueCount; q++) this.open[q] = this.newRun();
  }

  size(q: number): number {
    return this.sizes[q]!;
  }

  /** Slot x, whose copy's key is newer than every key in queue q, joins q. */
  append(x: number, q: number): void {
    this.batchRun = -1;
    this.link(x, q, this.open[q]!);
  }

  /**
   * Move the slots first..last, adjacent in one run (`len` of them, in key
   * order), to queue q, keeping their keys: one splice out, one splice in.
   * Segments moved in ascending key order between two endBatch() calls
   * continue one run where they can.
   */
  moveSegment(first: number, last: number, len: number, q: number): void {
    const i = this.store.i32;
    const f = this.store.f64;
    const bf = slotBase(first);
    this.cutSegment(first, last, len, i[bf + QUEUE]!, i[bf + RUN]!);
    const key = f[keyIndex(first >> 1)]!;
    // Continue the batch's run, else the open run, if the segment sorts after its tail.
    let r = this.batchRun;
    if (r < 0 || this.batchQueue !== q || !this.takes(r, key)) {
      r = this.takes(this.open[q]!, key) ? this.open[q]! : this.newRun();
    }
    for (let x = first; ; x = i[slotBase(x) + NEXT]!) {
      const b = slotBase(x);
      i[b + QUEUE] = q;
      i[b + RUN] = r;
      if (x === last) break;
    }
    this.attach(first, last, len, q, r);
    this.batchRun = r;
    this.batchQueue = q;
  }

  endBatch(): void {
    this.batchRun = -1;
  }

  /**
   * Unlink the slots first..last, adjacent in run r of queue q (`len` of
   * them), in one splice. The caller marks their QUEUE fields, possibly
   * already: this reads none of the segment's inner slots.
   */
  removeSegment(first: number, last: number, len: number, q: number, r: number): void {
    this.batchRun = -1;
    this.cutSegment(first, last, len, q, r);
  }

  /** Unlink slot x from its queue (the caller then sets its QUEUE field). */
  remove(x: number): void {
    this.batchRun = -1;
    const b = slotBase(x);
    this.cutSegment(x, x, 1, this.store.i32[b + QUEUE]!, this.store.i32[b + RUN]!);
  }

  /** Unlink the slot to evict next from non-empty queue q (the head of its first run) and return it; as remove(peek(q)). */
  popHead(q: number): number {
    this.batchRun = -1;
    const r = this.heaps[q]![0]!;
    const x = this.runHead[r]!;
    const i = this.store.i32;
    const n = i[slotBase(x) + NEXT]!;
    this.sizes[q]!--;
    if (n < 0) this.runTail[r] = -1;
    else i[slotBase(n) + PREV] = -1;
    this.headRemoved(q, r, n);
    return x;
  }

  /** The slot to evict next from queue q, or -1 if empty. */
  peek(q: number): number {
    return this.heapLen[q] === 0 ? -1 : this.runHead[this.heaps[q]![0]!]!;
  }

  /** Every slot in queue q, for clearing a tier and for checks. */
  members(q: number): number[] {
    return this.runsOf(q).flat();
  }

  /** The slots of each run of queue q, in key order. */
  runsOf(q: number): number[][] {
    const out: number[][] = [];
    const i = this.store.i32;
    const heap = this.heaps[q]!;
    for (let k = 0; k < this.heapLen[q]!; k++) {
      const run: number[] = [];
      for (let x = this.runHead[heap[k]!]!; x >= 0; x = i[slotBase(x) + NEXT]!) run.push(x);
      out.push(run);
    }
    return out;
  }

  /** Consistency of queue q for tests: runs sorted and linked both ways, heap ordered, sizes right. */
  check(q: number): string | null {
    const i = this.store.i32;
    const f = this.store.f64;
    const heap = this.heaps[q]!;
    const len = this.heapLen[q]!;
    let count = 0;
    let openSeen = false;
    for (let k = 0; k < len; k++) {
      const r = heap[k]!;
      if (this.runPos[r] !== k) return `queue ${q}: run ${r} at ${k} thinks it is at ${this.runPos[r]}`;
      if (this.runHead[r]! < 0) return `queue ${q}: empty run ${r} in the heap`;
      if (this.runKeys[r] !== f[keyIndex(this.runHead[r]! >> 1)]) return `queue ${q}: run ${r} caches a stale key`;
      if (k > 0 && this.runKey(r) < this.runKey(heap[(k - 1) >> 1]!)) return `queue ${q}: heap out of order at ${k}`;
      if (r === this.open[q]) openSeen = true;
      let prev = -1;
      for (let x = this.runHead[r]!; x >= 0; x = i[slotBase(x) + NEXT]!) {
        const b = slotBase(x);
        if (i[b + QUEUE] !== q || i[b + RUN] !== r) return `queue ${q}: slot ${x} mislabelled`;
        if (i[b + PREV] !== prev) return `queue ${q}: broken back link at ${x}`;
        if (prev >= 0 && f[keyIndex(x >> 1)]! <= f[keyIndex(prev >> 1)]!) return `queue ${q}: run ${r} out of order at ${x}`;
        prev = x;
        count++;
      }
      if (this.runTail[r] !== prev) return `queue ${q}: run ${r} has the wrong tail`;
    }
    const o = this.open[q]!;
    if (!openSeen && (this.runHead[o] !== -1 || this.runTail[o] !== -1)) return `queue ${q}: open run not empty but not in the heap`;
    if (count !== this.sizes[q]) return `queue ${q}: size ${this.sizes[q]} != ${count}`;
    return null;
  }

  /** Live runs across all queues (open runs included). */
  get runCount(): number {
    return this.liveRuns;
  }

  /** Whether run r can take `key` at its tail and stay sorted. */
  private takes(r: number, key: number): boolean {
    const tail = this.runTail[r]!;
    return tail < 0 || this.store.f64[keyIndex(tail >> 1)]! <= key;
  }

  /** Link the chain first..last (already labelled with q and r) after the tail of run r of queue q. */
  private attach(first: number, last: number, len: number, q: number, r: number): void {
    const i = this.store.i32;
    const t = this.runTail[r]!;
    i[slotBase(first) + PREV] = t;
    i[slotBase(last) + NEXT] = -1;
    this.runTail[r] = last;
    this.sizes[q]! += len;
    if (t >= 0) i[slotBase(t) + NEXT] = first;
    else {
      this.runHead[r] = first;
      this.runKeys[r] = this.store.f64[keyIndex(first >> 1)]!;
      this.heapPush(q, r);
    }
  }

  /** Splice first..last out of run r of queue q, leaving their own fields as they were. */
  private cutSegment(first: number, last: number, len: number, q: number, r: number): void {
    const i = this.store.i32;
    const p = i[slotBase(first) + PREV]!;
    const n = i[slotBase(last) + NEXT]!;
    this.sizes[q]! -= len;
    if (n < 0) this.runTail[r] = p;
    else i[slotBase(n) + PREV] = p;
    if (p >= 0) i[slotBase(p) + NEXT] = n;
    else this.headRemoved(q, r, n);
  }

  /** Run r of queue q lost its head; n is the new head (-1: the run is empty). */
  private headRemoved(q: number, r: number, n: number): void {
    this.runHead[r] = n;
    if (n >= 0) {
      // The run's key grew.
      this.runKeys[r] = this.store.f64[keyIndex(n >> 1)]!;
      this.siftDown(q, this.runPos[r]!, r);
    } else {
      this.heapRemove(q, r);
      if (r !== this.open[q]) this.releaseRun(r);
      if (r === this.batchRun) this.batchRun = -1;
    }
  }

  private link(x: number, q: number, r: number): void {
    const i = this.store.i32;
    const b = slotBase(x);
    const t = this.runTail[r]!;
    i[b + QUEUE] = q;
    i[b + RUN] = r;
    i[b + PREV] = t;
    i[b + NEXT] = -1;
    this.runTail[r] = x;
    this.sizes[q]!++;
    if (t >= 0) {
      i[slotBase(t) + NEXT] = x;
      return;
    }
    this.runHead[r] = x;
    this.runKeys[r] = this.store.f64[keyIndex(x >> 1)]!;
    this.heapPush(q, r);
  }

  private runKey(r: number): number {
    return this.runKeys[r]!;
  }

  private newRun(): number {
    let r = this.freeRun;
    if (r >= 0) this.freeRun = this.runPos[r]!;
    else {
      r = this.runHighWater++;
      if (r === this.runHead.length) this.growRuns();
    }
    this.liveRuns++;
    this.runHead[r] = -1;
    this.runTail[r] = -1;
    this.runPos[r] = -1;
    return r;
  }

  private releaseRun(r: number): void {
    this.runPos[r] = this.freeRun;
    this.freeRun = r;
    this.liveRuns--;
  }

  private growRuns(): void {
    const n = this.runHead.length * 2;
    const grow = (a: Int32Array): Int32Array => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    const keys = new Float64Array(n);
    keys.set(this.runKeys);
    this.runKeys = keys;
    this.runHead = grow(this.runHead);
    this.runTail = grow(this.runTail);
    this.runPos = grow(this.runPos);
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
    if (pos > 0 && this.runKey(moved) < this.runKey(heap[(pos - 1) >> 1]!)) this.siftUp(heap, pos, moved);
    else this.siftDown(q, pos, moved);
  }

  private siftUp(heap: Int32Array, pos: number, r: number): void {
    const key = this.runKey(r);
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      const p = heap[parent]!;
      if (this.runKey(p) <= key) break;
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
    const key = this.runKey(r);
    for (;;) {
      let child = 2 * pos + 1;
      if (child >= len) break;
      let childKey = this.runKey(heap[child]!);
      if (child + 1 < len) {
        const rightKey = this.runKey(heap[child + 1]!);
        if (rightKey < childKey) {
          child++;
          childKey = rightKey;
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
