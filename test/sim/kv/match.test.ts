import { describe, expect, it } from 'vitest';
import { KvDirectory } from '../../../src/sim/kv/index.js';
import { directory } from './helpers.js';

describe('match', () => {
  it('gpu and local count leading blocks per node, stopping at the first gap', () => {
    // Node 1 keeps only one block on its GPU, so its prefix lives mostly in host memory.
    const kv = new KvDirectory({ nodeCount: 3, l1CapacityBlocks: [10, 1, 10], l2CapacityBlocks: [10, 10, 10], eviction: 'lru' });
    kv.admitPrefill(0, -1, [1, 2, 3], 0);
    kv.admitPrefill(1, -1, [1, 2], 0);
    kv.admitPrefill(2, -1, [1, 3], 0); // 3 without 2: not a prefix of [1, 2, 3]
    const m = kv.match([1, 2, 3, 4]);
    expect(Array.from(m.gpu)).toEqual([3, 1, 1]);
    expect(Array.from(m.local)).toEqual([3, 2, 1]);
    expect(m.pool).toBe(3);
    expect(m.ideal).toBe(3);
  });

  it('pool spans nodes and names the lowest node holding each block, preferring host memory', () => {
    const kv = new KvDirectory({ nodeCount: 3, l1CapacityBlocks: [10, 10, 10], l2CapacityBlocks: [0, 10, 10], eviction: 'lru' });
    kv.admitPrefill(2, -1, [1], 0);
    kv.admitPrefill(1, -1, [1], 0);
    kv.admitPrefill(0, -1, [1, 2], 0); // node 0 has no L2: block 2 only on its GPU
    kv.admitPrefill(2, -1, [3], 0);
    const m = kv.match([1, 2, 3, 9, 3]);
    expect(m.pool).toBe(3);
    expect(Array.from(m.poolSource)).toEqual([1, 0, 2]);
    expect(Array.from(m.gpu)).toEqual([2, 1, 1]);
    expect(Array.from(m.local)).toEqual([2, 1, 1]);
  });

  it('ideal counts every block ever produced, even evicted, and stops at the first never-produced one', () => {
    const kv = directory({ nodes: 2, l1: 1, l2: 1 });
    kv.admitPrefill(0, -1, [1, 2], 0);
    kv.addProduced(1, -1, [3], 1);
    kv.admitPrefill(0, -1, [7], 2); // evicts everything of [1, 2] on node 0
    const m = kv.match([1, 2, 3, 4, 5]);
    expect(m.pool).toBe(0);
    expect(m.ideal).toBe(3);
    expect(kv.match([4, 1]).ideal).toBe(0);
    expect(kv.everProduced(2)).toBe(true);
    expect(kv.everProduced(4)).toBe(false);
  });

  it('is pure: matching does not refresh the eviction order', () => {
    const kv = directory({ nodes: 1, l1: 2, eviction: 'lru' });
    kv.admitPrefill(0, -1, [1], 0);
    kv.admitPrefill(0, -1, [2], 1);
    const before = kv.stats();
    kv.match([1]);
    kv.match([1, 2, 3]);
    expect(kv.stats()).toEqual(before);
    kv.admitPrefill(0, -1, [3], 2);
    expect(kv.has(1, 0, 1)).toBe(false);
  });

  it('handles empty prompts and ids never seen', () => {
    const kv = directory({ nodes: 2 });
    const empty = kv.match([]);
    expect(Array.from(empty.gpu)).toEqual([0, 0]);
    expect([empty.pool, empty.ideal, empty.poolSource.length]).toEqual([0, 0, 0]);
    const unseen = kv.match([123456789, -3]);
    expect([unseen.pool, unseen.ideal]).toEqual([0, 0]);
  });

  it('works with all 31 nodes', () => {
    const kv = directory({ nodes: 31 });
    kv.admitPrefill(30, -1, [1, 2], 0);
    kv.admitPrefill(0, -1, [1], 0);
    const m = kv.match([1, 2]);
    expect(m.gpu[30]).toBe(2);
    expect(m.gpu[0]).toBe(1);
    expect(m.gpu[15]).toBe(0);
    expect(Array.from(m.poolSource)).toEqual([0, 30]);
    kv.checkInvariants();
  });

  it('works past the mask width, with 1,024 nodes (copy lists instead of masks)', () => {
    const kv = directory({ nodes: 1024, l1: 3, l2: 10 });
    kv.admitPrefill(1023, -1, [1, 2, 3], 0);
    kv.admitPrefill(40, -1, [1, 2], 1);
    kv.admitPrefill(0, -1, [1], 2);
    kv.admitDecode(700, 7, [1, 2, 3, 4], 3); // L1 keeps 3 of them: 4 is evicted from L1, stays in L2
    const m = kv.match([1, 2, 3, 4, 5]);
    expect([m.gpu[1023], m.gpu[40], m.gpu[0], m.gpu[700], m.gpu[512]]).toEqual([3, 2, 1, 3, 0]);
    expect([m.local[1023], m.local[700]]).toEqual([3, 4]);
    expect(Array.from(m.poolSource)).toEqual([0, 40, 700, 700]);
    expect([m.pool, m.ideal]).toEqual([4, 4]);
    expect([kv.has(4, 700, 1), kv.has(4, 700, 2), kv.has(1, 1023, 1), kv.has(1, 5, 1)]).toEqual([false, true, true, false]);
    expect(kv.refCount(3, 700)).toBe(1);
    kv.checkInvariants();
    kv.clearNode(700);
    expect(Array.from(kv.match([1, 2, 3, 4]).poolSource)).toEqual([0, 40, 1023]);
    kv.checkInvariants();
  });
});
