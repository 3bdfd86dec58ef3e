/**
 * The per-block baseline: the same operations done block by block on
 * today's structures, src/sim/kv/copy-store.ts (64-byte copy records in
 * slabs of 8 ids of one node) and src/sim/kv/run-queues.ts (linked runs of
 * tier slots in a heap per queue), as tiers.ts and directory.ts use them.
 * What it leaves out of today's per-block work, so it is cheaper per block
 * than the directory (which makes k larger, not smaller): the id -> slot
 * hash and the copy index (here a direct per-node table of slabs), the
 * residency masks, the stats counters, the holdings' lists.
 */
import { BLOCK, COUNT, CopyStore, DETACHED, NODE, NOT_RESIDENT, PREV, QUEUE, RUN, SLAB_BITS, keyIndex, slotBase } from '../../../src/sim/kv/copy-store.js';
import { RunQueues } from '../../../src/sim/kv/run-queues.js';
import type { Engine } from './ops.js';
import type { OnEvict } from './span-queues.js';

export class BlockEngine implements Engine {
  /** Per-block loop iterations (a block looked up, placed, counted, moved; a slot evicted). */
  blockOps = 0;
  evicted = 0;
  /** Blocks whose count reached 0. */
  zeroed = 0;
  onEvict: OnEvict | null = null;
  readonly store = new CopyStore(4096);
  readonly queues: RunQueues;
  private readonly slabs: Int32Array[];
  readonly used: Int32Array;
  private readonly cap: Int32Array;
  private seq = 0;

  constructor(nodeCount: number, l1: readonly number[], l2: readonly number[]) {
    this.queues = new RunQueues(this.store, nodeCount * 4);
    this.slabs = Array.from({ length: nodeCount }, () => new Int32Array(1 << 14).fill(-1));
    this.used = new Int32Array(nodeCount * 2);
    this.cap = new Int32Array(nodeCount * 2);
    for (let n = 0; n < nodeCount; n++) {
      this.cap[n * 2] = l1[n]!;
      this.cap[n * 2 + 1] = l2[n]!;
    }
  }

  /** The block's copy on the node, or -1. */
  find(id: number, node: number): number {
    const s = this.slabs[node]![id >> SLAB_BITS] ?? -1;
    if (s < 0) return -1;
    const c = (s << SLAB_BITS) | (id & ((1 << SLAB_BITS) - 1));
    return this.store.i32[(c << 4) + BLOCK] === id ? c : -1;
  }

  private findOrCreate(id: number, node: number): number {
    let table = this.slabs[node]!;
    const g = id >> SLAB_BITS;
    if (g >= table.length) {
      let size = table.length;
      while (size <= g) size *= 2;
      const bigger = new Int32Array(size).fill(-1);
      bigger.set(table);
      this.slabs[node] = table = bigger;
    }
    let s = table[g]!;
    if (s < 0) table[g] = s = this.store.allocSlab();
    const c = (s << SLAB_BITS) | (id & ((1 << SLAB_BITS) - 1));
    if (this.store.i32[(c << 4) + BLOCK] !== id) this.store.init(c, id, node);
    return c;
  }

  private free(c: number): void {
    const i32 = this.store.i32;
    const id = i32[(c << 4) + BLOCK]!;
    const node = i32[(c << 4) + NODE]!;
    if (this.store.release(c)) this.slabs[node]![id >> SLAB_BITS] = -1;
  }

  private nowhere(c: number): boolean {
    const i32 = this.store.i32;
    return i32[slotBase(c * 2) + QUEUE] === NOT_RESIDENT && i32[slotBase(c * 2 + 1) + QUEUE] === NOT_RESIDENT;
  }

  /** As Tiers.detachAll: deepest first (oldest key first), neighbours in one run leave in one splice. */
  detach(node: number, first: number, len: number): void {
    const copies = this.scratchCopies(node, first, len);
    const i32 = this.store.i32;
    for (let t = 0; t < 2; t++) {
      let segFirst = -1;
      let last = -1;
      let count = 0;
      let q = -1;
      let r = -1;
      for (let k = len - 1; k >= 0; k--) {
        const c = copies[k]!;
        if (c < 0) continue;
        const x = c * 2 + t;
        const b = slotBase(x);
        if (i32[b + QUEUE]! < 0) continue;
        if (count > 0 && (i32[b + PREV] !== last || i32[b + RUN] !== r)) {
          this.queues.removeSegment(segFirst, last, count, q, r);
          this.used[node * 2 + t]! -= count;
          count = 0;
        }
        if (count === 0) {
          segFirst = x;
          q = i32[b + QUEUE]!;
          r = i32[b + RUN]!;
        }
        last = x;
        count++;
        // Out of the order and of the tier: push() puts it back and counts it.
        i32[b + QUEUE] = DETACHED;
      }
      if (count > 0) {
        this.queues.removeSegment(segFirst, last, count, q, r);
        this.used[node * 2 + t]! -= count;
      }
    }
  }

  private scratch = new Int32Array(1024);
  private scratchCopies(node: number, first: number, len: number): Int32Array {
    if (this.scratch.length < len) this.scratch = new Int32Array(Math.max(len, this.scratch.length * 2));
    const s = this.scratch;
    for (let k = 0; k < len; k++) s[k] = this.find(first + k, node);
    this.blockOps += len;
    return s;
  }

  /** As placeAll + Tiers.placeCopy, deepest block first, each the newest. */
  push(node: number, first: number, len: number, cls: number): void {
    for (let id = first + len - 1; id >= first; id--) {
      const c = this.findOrCreate(id, node);
      this.store.f64[keyIndex(c)] = ++this.seq;
      const i32 = this.store.i32;
      for (let t = 0; t < 2; t++) {
        const x = c * 2 + t;
        if (i32[slotBase(x) + QUEUE]! >= 0) this.queues.remove(x);
        this.queues.append(x, (node * 2 + t) * 2 + cls);
        this.used[node * 2 + t]!++;
      }
    }
    this.blockOps += len;
  }

  /** As Tiers.evictHead, count-0 queue first, after the whole prompt is placed. */
  fit(node: number): void {
    for (let t = 0; t < 2; t++) {
      const nt = node * 2 + t;
      while (this.used[nt]! > this.cap[nt]!) {
        let q = nt * 2;
        if (this.queues.size(q) === 0) q++;
        const x = this.queues.popHead(q);
        const i32 = this.store.i32;
        i32[slotBase(x) + QUEUE] = NOT_RESIDENT;
        this.used[nt]!--;
        this.evicted++;
        this.blockOps++;
        const c = x >> 1;
        if (this.onEvict) this.onEvict(nt, i32[(c << 4) + BLOCK]!, 1);
        if (i32[slotBase(x ^ 1) + QUEUE] === NOT_RESIDENT && i32[(c << 4) + COUNT] === 0) this.free(c);
      }
    }
  }

  /** As KvDirectory.inc / dec, one copy at a time (class moves come as move()). */
  add(node: number, first: number, len: number, delta: number): void {
    for (let id = first; id < first + len; id++) {
      const c = delta > 0 ? this.findOrCreate(id, node) : this.find(id, node);
      if (c < 0) throw new Error(`kv-span-proto: decrement of uncounted block ${id} on node ${node}`);
      const f = (c << 4) + COUNT;
      const i32 = this.store.i32;
      const after = (i32[f]! += delta);
      if (after < 0) throw new Error(`kv-span-proto: count of block ${id} on node ${node} below 0`);
      if (after === 0) {
        this.zeroed++;
        if (this.nowhere(c)) this.free(c);
      }
    }
    this.blockOps += len;
  }

  /** As Tiers.flush: queued slots of the range go to the class's queue, neighbours in one run as one segment. */
  move(node: number, first: number, len: number, cls: number): void {
    const copies = this.scratchCopies(node, first, len);
    const i32 = this.store.i32;
    for (let t = 0; t < 2; t++) {
      const target = (node * 2 + t) * 2 + cls;
      let segFirst = -1;
      let last = -1;
      let count = 0;
      let segRun = -1;
      for (let k = len - 1; k >= 0; k--) {
        const c = copies[k]!;
        const x = c * 2 + t;
        const b = slotBase(x);
        const q = c < 0 ? -1 : i32[b + QUEUE]!;
        const moves = q >= 0 && q !== target;
        if (count > 0 && !(moves && i32[b + PREV] === last && i32[b + RUN] === segRun)) {
          this.queues.moveSegment(segFirst, last, count, target);
          count = 0;
        }
        if (!moves) continue;
        if (count === 0) {
          segFirst = x;
          segRun = i32[b + RUN]!;
        }
        last = x;
        count++;
      }
      if (count > 0) this.queues.moveSegment(segFirst, last, count, target);
      this.queues.endBatch();
    }
  }
}
