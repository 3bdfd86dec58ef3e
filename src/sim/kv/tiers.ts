import { SimulationInvariantError } from '../../common/errors.js';
import { L1_MASK, type BlockTable } from './block-table.js';
import type { Copies } from './copies.js';
import { BLOCK, COUNT, DETACHED, NODE, NOT_RESIDENT, PREV, QUEUE, RUN, slotBase } from './copy-store.js';
import type { HolderRows } from './holder-rows.js';
import { RunQueues } from './run-queues.js';
import { MASK_NODES } from './types.js';

/**
 * Residency: which copies sit in which (node, tier), in what eviction order,
 * within capacity. Queue (node, tier, class) is (node * 2 + t) * 2 + class,
 * class 1 = counted (refcount order only; under lru every slot is class 0).
 * The order is per tier: with the KV of waiting branches protected in host
 * memory only, L1 is lru and L2 refcount.
 */
export class Tiers {
  /** Per (node, tier) at node * 2 + t (t = 0 for L1). */
  readonly capacity: Int32Array;
  readonly used: Int32Array;
  readonly queues: RunQueues;
  readonly counters = {
    l1Inserts: 0,
    l2Inserts: 0,
    l1Evictions: 0,
    l2Evictions: 0,
    l1HeldEvictions: 0,
    l2HeldEvictions: 0,
    l1Cleared: 0,
    l2Cleared: 0,
  };
  /** Per tier, queued slots whose count crossed 0, to move to their new class at flush(). */
  private readonly pending = [new Int32Array(256), new Int32Array(256)];
  private readonly pendingLen = new Int32Array(2);
  /** Residency masks are kept (few nodes); otherwise matching reads the copy lists. */
  readonly masked: boolean;
  /** Per tier (0: L1): counted slots go last (refcount order). Changed only through setOrder. */
  private readonly counted: [boolean, boolean];

  /** Whether tier t (0: L1, 1: L2) orders counted slots last. */
  countedLast(t: number): boolean {
    return this.counted[t]!;
  }

  constructor(
    readonly nodeCount: number,
    l1: readonly number[],
    l2: readonly number[],
    refcountOrder: boolean,
    private readonly copies: Copies,
    private readonly table: BlockTable,
    /** Without masks: the node bits of blocks on many nodes. */
    readonly rows: HolderRows | null = null,
  ) {
    this.capacity = new Int32Array(nodeCount * 2);
    for (let n = 0; n < nodeCount; n++) {
      this.capacity[n * 2] = l1[n]!;
      this.capacity[n * 2 + 1] = l2[n]!;
    }
    this.counted = [refcountOrder, refcountOrder];
    this.used = new Int32Array(nodeCount * 2);
    this.masked = nodeCount <= MASK_NODES;
    this.queues = new RunQueues(copies.store, nodeCount * 4);
  }

  /**
   * Take the resident slots of `n` copies (-1 entries skipped) out of the
   * eviction order until place() puts them back. Walking the copies in the
   * order they were last placed, slots that are neighbours in one run leave
   * in one splice.
   */
  detachAll(copies: Int32Array, n: number): void {
    const i32 = this.copies.store.i32;
    for (let t = 0; t < 2; t++) {
      let first = -1;
      let last = -1;
      let count = 0;
      let q = -1;
      let r = -1;
      for (let k = n - 1; k >= 0; k--) {
        const c = copies[k]!;
        if (c < 0) continue;
        const x = c * 2 + t;
        const b = slotBase(x);
        // Not resident, or already detached (the same id twice in one prompt).
        if (i32[b + QUEUE]! < 0) continue;
        if (count > 0 && (i32[b + PREV] !== last || i32[b + RUN] !== r)) {
          this.queues.removeSegment(first, last, count, q, r);
          count = 0;
        }
        if (count === 0) {
          first = x;
          q = i32[b + QUEUE]!;
          r = i32[b + RUN]!;
        }
        last = x;
        count++;
        i32[b + QUEUE] = DETACHED;
      }
      if (count > 0) this.queues.removeSegment(first, last, count, q, r);
    }
  }

  /**
   * Both tier slots of copy c on `node` become the newest of their queues,
   * L1 first, inserted if absent (a slot already queued is the same id twice
   * in one prompt); the caller has just given c the newest key. If an insert
   * puts the tier over capacity, the first slot in eviction order goes; if
   * that is the slot itself, it never enters (its copy is left for the
   * caller to free).
   */
  placeCopy(c: number, node: number): void {
    const i32 = this.copies.store.i32;
    const o = c << 4;
    const count = i32[o + COUNT]!;
    const block = i32[o + BLOCK]!;
    for (let t = 0; t < 2; t++) {
      const x = c * 2 + t;
      const state = i32[slotBase(x) + QUEUE]!;
      if (state >= 0) this.queues.remove(x);
      this.queues.append(x, this.queueOf(node * 2 + t, count));
      if (state === NOT_RESIDENT) this.inserted(x, node, t, block);
    }
  }

  /** Slot x of `block`, just queued, was resident nowhere in its tier: count it, mark it, evict if over capacity. */
  private inserted(x: number, node: number, t: number, block: number): void {
    const nt = node * 2 + t;
    const used = ++this.used[nt]!;
    // The tier's mask is at L1_MASK + t.
    if (this.masked) this.table.data[(block << 2) + L1_MASK + t] |= 1 << node;
    else this.rows!.set(block, node, t, true);
    if (used > this.capacity[nt]!) {
      // The first slot in eviction order: the count-zero queue first.
      let q = nt * 2;
      if (this.queues.size(q) === 0 && this.queues.size(++q) === 0) {
        throw new SimulationInvariantError(`KV directory: node ${node} tier ${t + 1} over capacity with nothing to evict`);
      }
      if (this.queues.peek(q) === x) {
        this.dropSlot(x, node, t, false);
        return;
      }
      this.evictHead(q, node, t);
    }
    if (t === 0) this.counters.l1Inserts++;
    else this.counters.l2Inserts++;
  }

  /** A copy's count crossed 0: its queued slots are noted, and flush() moves them to their new class. */
  classChanged(c: number): void {
    if (!this.counted[0] && !this.counted[1]) return;
    const i32 = this.copies.store.i32;
    for (let t = 0; t < 2; t++) {
      if (!this.counted[t]) continue;
      const x = c * 2 + t;
      // Not resident, or detached: place() will queue it in the right class.
      if (i32[slotBase(x) + QUEUE]! < 0) continue;
      let buf = this.pending[t]!;
      const len = this.pendingLen[t]!;
      if (len === buf.length) {
        const bigger = new Int32Array(len * 2);
        bigger.set(buf);
        this.pending[t] = buf = bigger;
      }
      buf[len] = x;
      this.pendingLen[t] = len + 1;
    }
  }

  /**
   * Move noted slots to the queue of their current count's class, keeping
   * their keys. They come per tier in the order their holding was walked,
   * oldest placed first, so runs of them are neighbours in one run of their
   * old queue: each such segment moves in one splice.
   */
  flush(): void {
    const i32 = this.copies.store.i32;
    const queues = this.queues;
    for (let t = 0; t < 2; t++) {
      const buf = this.pending[t]!;
      const len = this.pendingLen[t]!;
      let first = -1;
      let last = -1;
      let count = 0;
      let segRun = -1;
      let segTarget = -1;
      for (let k = 0; k < len; k++) {
        const x = buf[k]!;
        const b = slotBase(x);
        const o = (x >> 1) << 4;
        const q = i32[b + QUEUE]!;
        const target = q < 0 ? q : this.queueOf(i32[o + NODE]! * 2 + t, i32[o + COUNT]!);
        const moves = target !== q;
        if (count > 0 && !(moves && i32[b + PREV] === last && i32[b + RUN] === segRun && target === segTarget)) {
          queues.moveSegment(first, last, count, segTarget);
          count = 0;
          // x may have been in that segment (its count crossed 0 twice): then it is in place now.
          if (i32[b + QUEUE] === target) continue;
        }
        if (!moves) continue;
        if (count === 0) {
          first = x;
          segRun = i32[b + RUN]!;
          segTarget = target;
        }
        last = x;
        count++;
      }
      if (count > 0) queues.moveSegment(first, last, count, segTarget);
      queues.endBatch();
      this.pendingLen[t] = 0;
    }
  }

  /** Drop every slot of (node, tier), freeing copies left resident nowhere and uncounted. */
  clearTier(node: number, t: number): void {
    const q0 = (node * 2 + t) * 2;
    const slots = this.queues.members(q0).concat(this.queues.members(q0 + 1));
    for (const x of slots) this.dropSlot(x, node, t, true);
    if (t === 0) this.counters.l1Cleared += slots.length;
    else this.counters.l2Cleared += slots.length;
  }

  /**
   * Switch the eviction order for the next evictions. Keys (access sequence
   * numbers) are unique, so the order within a (node, tier) stays exact:
   * to lru, the counted queue's runs move whole into the count-zero queue
   * (its heap of runs merges them by key); to refcount, every counted slot
   * of the count-zero queue moves to the counted queue, keeping its key.
   */
  setOrder(l1Refcount: boolean, l2Refcount: boolean): void {
    const want = [l1Refcount, l2Refcount];
    const i32 = this.copies.store.i32;
    for (let nt = 0; nt < this.nodeCount * 2; nt++) {
      const refcount = want[nt & 1]!;
      if (refcount === this.counted[nt & 1]) continue;
      const q0 = nt * 2;
      if (!refcount) {
        for (const run of this.queues.runsOf(q0 + 1)) this.queues.moveSegment(run[0]!, run[run.length - 1]!, run.length, q0);
      } else {
        for (const run of this.queues.runsOf(q0)) {
          for (const x of run) if (i32[((x >> 1) << 4) + COUNT]! > 0) this.queues.moveSegment(x, x, 1, q0 + 1);
        }
      }
      this.queues.endBatch();
    }
    this.counted[0] = l1Refcount;
    this.counted[1] = l2Refcount;
  }

  /**
   * Share of the resident slots (every node, both tiers) whose copy no branch
   * counts; null under lru, whose queues do not tell counted slots apart.
   */
  unreferencedShare(): number | null {
    if (!this.counted[0] || !this.counted[1]) return null;
    let zero = 0;
    let all = 0;
    for (let q = 0; q < this.nodeCount * 4; q += 2) {
      zero += this.queues.size(q);
      all += this.queues.size(q) + this.queues.size(q + 1);
    }
    return all > 0 ? zero / all : null;
  }

  /** True when the copy is in neither tier (detached slots are resident). */
  isNowhere(c: number): boolean {
    const i32 = this.copies.store.i32;
    return i32[slotBase(c * 2) + QUEUE] === NOT_RESIDENT && i32[slotBase(c * 2 + 1) + QUEUE] === NOT_RESIDENT;
  }

  /** The head of queue q, of (node, tier t), is evicted. */
  private evictHead(q: number, node: number, t: number): void {
    const x = this.queues.popHead(q);
    const i32 = this.copies.store.i32;
    const c = x >> 1;
    const held = i32[(c << 4) + COUNT]! > 0;
    if (t === 0) {
      this.counters.l1Evictions++;
      if (held) this.counters.l1HeldEvictions++;
    } else {
      this.counters.l2Evictions++;
      if (held) this.counters.l2HeldEvictions++;
    }
    this.unqueued(x, node, t, true);
  }

  /** Slot x leaves its tier; its copy is freed (if `free`) once resident nowhere and uncounted. */
  private dropSlot(x: number, node: number, t: number, free: boolean): void {
    this.queues.remove(x);
    this.unqueued(x, node, t, free);
  }

  /** Slot x, just unlinked from its queue, leaves its tier. */
  private unqueued(x: number, node: number, t: number, free: boolean): void {
    const i32 = this.copies.store.i32;
    i32[slotBase(x) + QUEUE] = NOT_RESIDENT;
    this.used[node * 2 + t]!--;
    const c = x >> 1;
    if (this.masked) this.table.data[(i32[(c << 4) + BLOCK]! << 2) + L1_MASK + t] &= ~(1 << node);
    else this.rows!.set(i32[(c << 4) + BLOCK]!, node, t, false);
    if (free && i32[slotBase(x ^ 1) + QUEUE] === NOT_RESIDENT && i32[(c << 4) + COUNT] === 0) this.copies.free(c);
  }

  private queueOf(nodeTier: number, count: number): number {
    return nodeTier * 2 + (this.counted[nodeTier & 1] && count > 0 ? 1 : 0);
  }
}
