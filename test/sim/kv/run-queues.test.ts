import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { CopyStore, keyIndex, QUEUE, SLAB, slotBase } from '../../../src/sim/kv/copy-store.js';
import { RunQueues } from '../../../src/sim/kv/run-queues.js';

describe('RunQueues', () => {
  it('yields the exact minimum key under appends, segment moves, re-accesses, removals and head pops', () => {
    const rng = new Rng(42);
    const store = new CopyStore(8);
    const copies = 38 * SLAB;
    for (let s = 0; s < 38; s++) store.allocSlab();
    for (let c = 0; c < copies; c++) store.init(c, c, 0);
    const QUEUES = 3;
    const queues = new RunQueues(store, QUEUES);
    const members = Array.from({ length: QUEUES }, () => new Set<number>());
    // One slot per copy (the L1 slot, x = 2c): keys belong to copies.
    const key = (x: number): number => store.f64[keyIndex(x >> 1)]!;
    const queueOf = (x: number): number => store.i32[slotBase(x) + QUEUE]!;
    const leave = (x: number): void => {
      members[queueOf(x)]!.delete(x);
      queues.remove(x);
      store.i32[slotBase(x) + QUEUE] = -1;
    };
    let seq = 0;
    for (let step = 0; step < 6000; step++) {
      const r = rng.next();
      const q = rng.int(0, QUEUES - 1);
      if (r < 0.4) {
        // A fresh access: newest key.
        const x = 2 * rng.int(0, copies - 1);
        if (queueOf(x) >= 0) leave(x);
        store.f64[keyIndex(x >> 1)] = ++seq;
        queues.append(x, q);
        members[q]!.add(x);
      } else if (r < 0.55) {
        // A batch of class changes: slices of runs move to another queue, keeping their keys.
        for (let k = rng.int(1, 3); k > 0; k--) {
          const from = rng.int(0, QUEUES - 1);
          const runs = queues.runsOf(from);
          if (runs.length === 0) continue;
          const run = rng.pick(runs);
          const a = rng.int(0, run.length - 1);
          const b = rng.int(a, Math.min(run.length - 1, a + 8));
          const to = (from + rng.int(1, QUEUES - 1)) % QUEUES;
          queues.moveSegment(run[a]!, run[b]!, b - a + 1, to);
          for (const x of run.slice(a, b + 1)) {
            members[from]!.delete(x);
            members[to]!.add(x);
          }
        }
        queues.endBatch();
      } else if (r < 0.7) {
        const all = [...members[q]!];
        if (all.length > 0) leave(rng.pick(all));
      } else {
        const x = queues.peek(q);
        const all = [...members[q]!];
        const min = all.length === 0 ? -1 : all.reduce((a, b) => (key(b) < key(a) ? b : a));
        expect(x).toBe(min);
        if (x >= 0 && rng.next() < 0.5) {
          // An eviction: the head leaves by popHead, as remove(peek(q)).
          expect(queues.popHead(q)).toBe(x);
          members[q]!.delete(x);
          store.i32[slotBase(x) + QUEUE] = -1;
        } else if (x >= 0) leave(x);
      }
      for (let k = 0; k < QUEUES; k++) {
        expect(queues.check(k)).toBeNull();
        expect(queues.size(k)).toBe(members[k]!.size);
      }
    }
    // Runs are recycled: only a few remain live.
    expect(queues.runCount).toBeLessThan(200);
  });
});
