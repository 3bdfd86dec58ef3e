import { keyIndex, POS, QUEUE, RUN, slotBase, type CopyStore } from './copy-store.js';

/** A run: slots in ascending key order, in an array, with -1 marking entries that left. */
interface Run {
  queue: number;
  slots: Int32Array;
  /** Absolute position of slots[0]; positions stay valid while the array shifts. */
  base: number;
  /** Absolute positions of the first entry not yet passed, and one past the last. */
  head: number;
  end: number;
  /** Entries still valid. */
  live: number;
  /** Key of the last entry appended (runs only take keys >= it). */
  tailKey: number;
}

/** Open runs are sealed at this length, so a long-lived entry pins at most this many stale ones. */
const SEAL = 4096;

/**
 * Exact eviction order for many queues over the tier slots of a CopyStore.
 * A queue holds slots ordered by their copy's key (the access sequence
 * number); the smallest goes first.
 *
 * A queue is a set of runs, each an array of slots in ascending key order,
 * in a min-heap keyed by each run's first entry. Fresh accesses carry the
 * newest key and append to the queue's open run. Slots that change class (a
 * count reaching or leaving 0) keep their older keys; they arrive in batches
 * from one holding, mostly in key order, and are cut into ascending runs.
 *
 * Removal only marks the entry (-1) through the position the slot records:
 * nothing else is touched, unlike unlinking from a list, whose neighbours are
 * cache misses that depend on each other. Marked entries are skipped when
 * they reach a run's head, and a run more than half marked is compacted, so
 * the memory for marks stays proportional to the live entries.
 */
export class RunQueues {
  private runs: Run[] = [];
  private runKeys: Float64Array = new Float64Array(64);
  private runPos: Int32Array = new Int32Array(64);
  private freeRuns: number[] = [];

  private readonly heaps: Int32Array[];
  private readonly heapLen: Int32Array;
  private readonly open: Int32Array;
  private readonly sizes: Int32Array;

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
    for (let q = 0; q < queueCount; q++) this.open[q] = this.newRun(q);
  }

  size(q: number): number {
    return this.sizes[q]!;
  }

  /** Slot x, whose copy's key is newer than every key in queue q, joins q. */
  append(x: number, q: number): void {
    this.batchRun = -1;
    let r = this.open[q]!;
    if (this.runs[r]!.end - this.runs[r]!.head >= SEAL) {
      r = this.newRun(q);
      this.open[q] = r;
    }
    this.push(r, x);
  }

  /**
   * Slot x joins q with an old key. Call for a batch of slots, then endBatch();
   * consecutive slots of one queue in ascending key order share a run.
   */
  addOld(x: number, q: number): void {
    const key = this.store.f64[keyIndex(x >> 1)]!;
    let r = this.batchRun;
    if (r < 0 || this.batchQueue !== q || this.runs[r]!.tailKey > key) {
      const o = this.runs[this.open[q]!]!;
      r = (o.live === 0 || o.tailKey <= key) && o.end - o.head < SEAL ? this.open[q]! : this.newRun(q);
      this.batchRun = r;
      this.batchQueue = q;
    }
    this.push(r, x);
  }

  endBatch(): void {
    this.batchRun = -1;
  }

  /** Slot x leaves its queue (the caller then sets its QUEUE field). */
  remove(x: number): void {
    this.batchRun = -1;
    const i32 = this.store.i32;
    const b = slotBase(x);
    const r = i32[b + RUN]!;
    const run = this.runs[r]!;
    run.slots[i32[b + POS]! - run.base] = -1;
    this.sizes[run.queue]!--;
    if (--run.live === 0) {
      this.heapRemove(run.queue, r);
      run.base = run.head = run.end = 0;
      if (r !== this.open[run.queue]) this.freeRuns.push(r);
    } else if (run.end - run.head > 5 * run.live + 16) {
      this.compact(r);
    }
  }

  /** The slot to evict next from queue q, or -1 if empty. */
  peek(q: number): number {
    const heap = this.heaps[q]!;
    for (;;) {
      if (this.heapLen[q] === 0) return -1;
      const r = heap[0]!;
      const run = this.runs[r]!;
      const slots = run.slots;
      let h = run.head;
      // live > 0, so a valid entry lies ahead.
      while (slots[h - run.base] === -1) h++;
      const x = slots[h - run.base]!;
      if (h === run.head) return x;
      // Marked entries were passed: the run's key grew, so it may sink.
      run.head = h;
      this.runKeys[r] = this.store.f64[keyIndex(x >> 1)]!;
      this.siftDown(q, 0, r);
    }
  }

  /** Every slot in queue q, for clearing a tier and for checks. */
  members(q: number): number[] {
    const out: number[] = [];
    const heap = this.heaps[q]!;
    for (let k = 0; k < this.heapLen[q]!; k++) {
      const run = this.runs[heap[k]!]!;
      for (let p = run.head; p < run.end; p++) {
        const x = run.slots[p - run.base]!;
        if (x >= 0) out.push(x);
      }
    }
    return out;
  }

  /** Consistency of queue q for tests: entries and slots agree, runs sorted, heap ordered, sizes right. */
  check(q: number): string | null {
    const i32 = this.store.i32;
    const f64 = this.store.f64;
    const heap = this.heaps[q]!;
    const len = this.heapLen[q]!;
    let count = 0;
    for (let k = 0; k < len; k++) {
      const r = heap[k]!;
      const run = this.runs[r]!;
      if (this.runPos[r] !== k) return `queue ${q}: run ${r} at ${k} thinks it is at ${this.runPos[r]}`;
      if (run.queue !== q) return `queue ${q}: run ${r} belongs to queue ${run.queue}`;
      if (k > 0 && this.runKeys[r]! < this.runKeys[heap[(k - 1) >> 1]!]!) return `queue ${q}: heap out of order at ${k}`;
      let live = 0;
      let prevKey = -Infinity;
      for (let p = run.head; p < run.end; p++) {
        const x = run.slots[p - run.base]!;
        if (x < 0) continue;
        const b = slotBase(x);
        if (i32[b + QUEUE] !== q || i32[b + RUN] !== r || i32[b + POS] !== p) return `queue ${q}: slot ${x} at run ${r} position ${p} does not point back`;
        const key = f64[keyIndex(x >> 1)]!;
        if (key <= prevKey) return `queue ${q}: run ${r} out of order at ${p}`;
        if (live === 0 && this.runKeys[r]! > key) return `queue ${q}: run ${r} key above its first entry`;
        if (p === run.head && this.runKeys[r] !== key) return `queue ${q}: run ${r} key is not its valid head's`;
        if (key > run.tailKey) return `queue ${q}: run ${r} entry above its tail key`;
        prevKey = key;
        live++;
      }
      if (live !== run.live || live === 0) return `queue ${q}: run ${r} counts ${run.live} live entries, has ${live}`;
      count += live;
    }
    const o = this.runs[this.open[q]!]!;
    if (o.queue !== q || (o.live === 0) !== (this.runPos[this.open[q]!] === -1)) return `queue ${q}: open run misfiled`;
    if (count !== this.sizes[q]) return `queue ${q}: size ${this.sizes[q]} != ${count}`;
    return null;
  }

  /** Live runs across all queues (open runs included). */
  get runCount(): number {
    return this.runs.length - this.freeRuns.length;
  }

  private push(r: number, x: number): void {
    const run = this.runs[r]!;
    if (run.end - run.base === run.slots.length) this.makeRoom(run);
    const i32 = this.store.i32;
    const b = slotBase(x);
    const key = this.store.f64[keyIndex(x >> 1)]!;
    run.slots[run.end - run.base] = x;
    i32[b + QUEUE] = run.queue;
    i32[b + RUN] = r;
    i32[b + POS] = run.end;
    run.end++;
    run.tailKey = key;
    this.sizes[run.queue]!++;
    if (run.live++ === 0) {
      run.head = run.end - 1;
      this.runKeys[r] = key;
      this.heapPush(run.queue, r);
    }
  }

  /** Reuse the passed prefix of the array if it is most of it, else double it. */
  private makeRoom(run: Run): void {
    const used = run.end - run.head;
    const from = run.head - run.base;
    if (used * 2 <= run.slots.length) run.slots.copyWithin(0, from, from + used);
    else {
      const bigger = new Int32Array(run.slots.length * 2);
      bigger.set(run.slots.subarray(from, from + used));
      run.slots = bigger;
    }
    run.base = run.head;
  }

  /** Squeeze marks out of run r (live > 0), renumbering its entries from 0. */
  private compact(r: number): void {
    const run = this.runs[r]!;
    const i32 = this.store.i32;
    const slots = run.slots;
    let w = 0;
    for (let p = run.head - run.base; p < run.end - run.base; p++) {
      const x = slots[p]!;
      if (x < 0) continue;
      slots[w] = x;
      i32[slotBase(x) + POS] = w;
      w++;
    }
    run.base = 0;
    run.head = 0;
    run.end = w;
    // Marks at the head may have gone: the run's key is now its first entry's.
    const key = this.store.f64[keyIndex(slots[0]! >> 1)]!;
    if (key !== this.runKeys[r]) {
      this.runKeys[r] = key;
      this.siftDown(run.queue, this.runPos[r]!, r);
    }
  }

  private newRun(q: number): number {
    const r = this.freeRuns.pop();
    if (r !== undefined) {
      const run = this.runs[r]!;
      run.queue = q;
      run.base = run.head = run.end = run.live = 0;
      run.tailKey = -Infinity;
      this.runPos[r] = -1;
      return r;
    }
    const id = this.runs.length;
    this.runs.push({ queue: q, slots: new Int32Array(64), base: 0, head: 0, end: 0, live: 0, tailKey: -Infinity });
    if (id === this.runKeys.length) {
      const keys = new Float64Array(id * 2);
      keys.set(this.runKeys);
      this.runKeys = keys;
      const pos = new Int32Array(id * 2);
      pos.set(this.runPos);
      this.runPos = pos;
    }
    this.runPos[id] = -1;
    return id;
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
    if (pos > 0 && this.runKeys[moved]! < this.runKeys[heap[(pos - 1) >> 1]!]!) this.siftUp(heap, pos, moved);
    else this.siftDown(q, pos, moved);
  }

  private siftUp(heap: Int32Array, pos: number, r: number): void {
    const keys = this.runKeys;
    const key = keys[r]!;
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      const p = heap[parent]!;
      if (keys[p]! <= key) break;
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
    const keys = this.runKeys;
    const key = keys[r]!;
    for (;;) {
      let child = 2 * pos + 1;
      if (child >= len) break;
      let childKey = keys[heap[child]!]!;
      if (child + 1 < len) {
        const rightKey = keys[heap[child + 1]!]!;
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
