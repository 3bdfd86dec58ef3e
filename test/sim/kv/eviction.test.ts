import { describe, expect, it } from 'vitest';
import { KvDirectory, MAX_NODES } from '../../../src/sim/kv/index.js';
import { directory, range } from './helpers.js';

const N = 0;

describe('eviction order', () => {
  it('refcount evicts a count-0 block even when it is more recent than a counted one', () => {
    const kv = directory({ l1: 2, eviction: 'refcount' });
    kv.admitPrefill(N, 7, [1], 0); // counted, old
    kv.admitPrefill(N, -1, [2], 1); // uncounted, newer
    kv.admitPrefill(N, -1, [3], 2);
    expect(kv.has(1, N, 1)).toBe(true);
    expect(kv.has(2, N, 1)).toBe(false);
    expect(kv.stats().l1HeldEvictions).toBe(0);
    kv.checkInvariants();
  });

  it('lru evicts the oldest block regardless of counts', () => {
    const kv = directory({ l1: 2, eviction: 'lru' });
    kv.admitPrefill(N, 7, [1], 0);
    kv.admitPrefill(N, -1, [2], 1);
    kv.admitPrefill(N, -1, [3], 2);
    expect(kv.has(1, N, 1)).toBe(false);
    expect(kv.has(2, N, 1)).toBe(true);
    expect(kv.stats().l1HeldEvictions).toBe(1);
    kv.checkInvariants();
  });

  it('a refresh makes a block the newest', () => {
    const kv = directory({ l1: 2, eviction: 'lru' });
    kv.admitPrefill(N, -1, [1], 0);
    kv.admitPrefill(N, -1, [2], 1);
    kv.admitPrefill(N, -1, [1], 2);
    kv.admitPrefill(N, -1, [3], 3);
    expect([kv.has(1, N, 1), kv.has(2, N, 1), kv.has(3, N, 1)]).toEqual([true, false, true]);
  });

  it('counts order eviction but do not pin: counted blocks go oldest first when nothing else is left', () => {
    const kv = directory({ l1: 2, eviction: 'refcount' });
    kv.admitPrefill(N, 7, [1], 0);
    kv.admitPrefill(N, 8, [2], 1);
    kv.admitPrefill(N, 9, [3], 2);
    expect([kv.has(1, N, 1), kv.has(2, N, 1), kv.has(3, N, 1)]).toEqual([false, true, true]);
    expect(kv.stats().l1Evictions).toBe(1);
    expect(kv.stats().l1HeldEvictions).toBe(1);
    kv.checkInvariants();
  });

  it('a copy released to count 0 keeps its old last access: evicted before newer count-0 copies', () => {
    const kv = directory({ l1: 3, eviction: 'refcount' });
    kv.admitPrefill(N, 7, [1], 0);
    kv.admitPrefill(N, -1, [2], 1);
    kv.admitPrefill(N, -1, [3], 2);
    kv.endBranch(7); // block 1 joins the count-0 order behind 2 and 3 in time, ahead of them in order
    kv.admitPrefill(N, -1, [4], 3);
    expect(kv.has(1, N, 1)).toBe(false);
    kv.admitPrefill(N, -1, [5], 4);
    expect(kv.has(2, N, 1)).toBe(false);
    expect(kv.has(3, N, 1)).toBe(true);
    kv.checkInvariants();
  });

  it('a copy that gains a count without being accessed keeps its last access among the counted ones', () => {
    const kv = directory({ nodes: 2, l1: 3, eviction: 'refcount' });
    kv.admitPrefill(N, -1, [2], 0); // uncounted, oldest
    kv.admitPrefill(N, 7, [1], 1);
    kv.admitDecode(1, 8, [2], 2);
    kv.addProduced(N, 8, [], 3); // branch 8's D holding moves to N: block 2 counted there, not accessed
    expect(kv.refCount(2, N)).toBe(1);
    kv.admitPrefill(N, 9, [3], 4);
    kv.admitPrefill(N, 10, [4], 5); // all counted: the oldest is 2
    expect([kv.has(1, N, 1), kv.has(2, N, 1), kv.has(3, N, 1), kv.has(4, N, 1)]).toEqual([true, false, true, true]);
    kv.checkInvariants();
  });

  it("placing a prompt never evicts the prompt's own cached blocks", () => {
    const kv = directory({ l1: 4, l2: 100, eviction: 'lru' });
    kv.admitPrefill(N, -1, [1, 2], 0); // the prompt's prefix, oldest in L1
    kv.admitPrefill(N, -1, [10, 11], 1);
    kv.admitPrefill(N, -1, [1, 2, 3, 4], 2);
    expect([1, 2, 3, 4].map((b) => kv.has(b, N, 1))).toEqual([true, true, true, true]);
    expect(kv.stats().l1Evictions).toBe(2); // 10 and 11, nothing evicted and reinserted
    kv.checkInvariants();
  });

  it('among blocks of one request, the deepest go first, so a prompt bigger than the tier keeps its prefix', () => {
    const kv = directory({ l1: 3, l2: 4, eviction: 'lru' });
    kv.admitPrefill(N, -1, range(1, 7), 0);
    expect(range(1, 7).map((b) => kv.has(b, N, 1))).toEqual([true, true, true, false, false, false]);
    expect(kv.match(range(1, 7)).gpu[N]).toBe(3);
    expect(kv.match(range(1, 7)).local[N]).toBe(4);
    kv.checkInvariants();
  });

  it('L1 eviction keeps the L2 copy', () => {
    const kv = directory({ l1: 2, l2: 10 });
    kv.admitPrefill(N, -1, [1], 0);
    kv.admitPrefill(N, -1, [2], 1);
    kv.admitPrefill(N, -1, [3], 2);
    expect(kv.has(1, N, 1)).toBe(false);
    expect(kv.has(1, N, 2)).toBe(true);
    expect(kv.used(N, 1)).toBe(2);
    expect(kv.used(N, 2)).toBe(3);
    expect(kv.match([1]).local[N]).toBe(1);
    expect(kv.match([1]).gpu[N]).toBe(0);
    kv.checkInvariants();
  });

  it('L2 eviction keeps the L1 copy', () => {
    const kv = directory({ l1: 10, l2: 1 });
    kv.admitPrefill(N, -1, [1], 0);
    kv.admitPrefill(N, -1, [2], 1);
    expect(kv.has(1, N, 1)).toBe(true);
    expect(kv.has(1, N, 2)).toBe(false);
    expect(kv.stats().l2Evictions).toBe(1);
    kv.checkInvariants();
  });

  it('a counted copy evicted from both tiers keeps its count and comes back counted', () => {
    const kv = directory({ l1: 1, l2: 1 });
    kv.admitPrefill(N, 7, [1], 0);
    kv.admitPrefill(N, 8, [2], 1); // everything counted: 1 is the oldest
    expect(kv.has(1, N, 1) || kv.has(1, N, 2)).toBe(false);
    expect(kv.refCount(1, N)).toBe(1);
    expect(kv.stats().copies).toBe(2);
    kv.admitPrefill(N, -1, [1], 2);
    expect(kv.refCount(1, N)).toBe(1);
    kv.endBranch(7);
    expect(kv.refCount(1, N)).toBe(0);
    kv.endBranch(8); // block 2 was evicted: its record goes with the last count
    expect(kv.stats().copies).toBe(1);
    kv.checkInvariants();
  });

  it('a zero-capacity tier holds nothing', () => {
    const kv = new KvDirectory({ nodeCount: 2, l1CapacityBlocks: [0, 5], l2CapacityBlocks: [5, 0], eviction: 'refcount' });
    kv.admitPrefill(0, -1, [1, 2], 0);
    kv.admitPrefill(1, -1, [1, 2], 0);
    expect([kv.used(0, 1), kv.used(0, 2), kv.used(1, 1), kv.used(1, 2)]).toEqual([0, 2, 2, 0]);
    kv.checkInvariants();
  });

  it('used never exceeds capacity, per node and tier', () => {
    const kv = new KvDirectory({ nodeCount: 3, l1CapacityBlocks: [4, 2, 7], l2CapacityBlocks: [9, 3, 7], eviction: 'refcount' });
    for (let i = 0; i < 50; i++) kv.admitPrefill(i % 3, i % 5, range(i * 3, i * 3 + 6), i);
    for (let n = 0; n < 3; n++) {
      expect(kv.used(n, 1)).toBe(kv.capacityOf(n, 1));
      expect(kv.used(n, 2)).toBe(kv.capacityOf(n, 2));
    }
    kv.checkInvariants();
  });

  it('rejects bad arguments', () => {
    expect(() => directory({ nodes: MAX_NODES + 1 })).toThrow(RangeError);
    expect(() => new KvDirectory({ nodeCount: 2, l1CapacityBlocks: [1], l2CapacityBlocks: [1, 1], eviction: 'lru' })).toThrow(RangeError);
    const kv = directory();
    expect(() => kv.admitPrefill(4, -1, [1], 0)).toThrow(RangeError);
    expect(() => kv.admitPrefill(0, -1, [-1], 0)).toThrow(RangeError);
    expect(() => kv.admitPrefill(0, -1, [1.5], 0)).toThrow(RangeError);
    expect(() => kv.admitPrefill(0, -1, [2 ** 53], 0)).toThrow(RangeError);
    expect(() => kv.admitPrefill(0, -1, [2 ** 40], 0)).not.toThrow();
    expect(() => kv.admitPrefill(0, -1, [1], Number.NaN)).toThrow(RangeError);
    kv.admitPrefill(0, -1, [1], 5);
    expect(() => kv.admitDecode(1, -1, [1], 4)).toThrow(/goes back/);
  });
});
