import { describe, expect, it } from 'vitest';
import { KvDirectory } from '../../../src/sim/kv/index.js';
import { BlockIdPool, MAX_BLOCK_ID } from '../../../src/workload/blocks.js';

function directory(l1 = 8, l2 = 16, nodes = 2): KvDirectory {
  return new KvDirectory({ nodeCount: nodes, l1CapacityBlocks: Array(nodes).fill(l1), l2CapacityBlocks: Array(nodes).fill(l2), eviction: 'refcount' });
}

const range = (first: number, n: number): number[] => Array.from({ length: n }, (_, k) => first + k);

describe('KV block slots: ids map to slots of live blocks, reused once dead', () => {
  it('a retired block keeps its slot (resident, produced) until its last copy goes, then forgets it', () => {
    const kv = directory(4, 4, 1);
    kv.admitPrefill(0, 7, [10, 11, 12], 1);
    kv.retire(10, 3);
    // Counted and resident: nothing changes for it.
    expect(kv.has(10, 0, 1)).toBe(true);
    expect(kv.everProduced(12)).toBe(true);
    expect(kv.match([10, 11, 12]).ideal).toBe(3);
    kv.endBranch(7);
    // Still resident, uncounted: still there.
    expect(kv.has(11, 0, 2)).toBe(true);
    const live = kv.slotStats().liveGroups;
    // Four fresh blocks fill both tiers: the retired ones are evicted, and with their last copy their slots go.
    kv.admitPrefill(0, -1, [20, 21, 22, 23], 2);
    expect(kv.has(10, 0, 1) || kv.has(10, 0, 2)).toBe(false);
    expect(kv.everProduced(10)).toBe(false);
    expect(kv.match([10, 11, 12]).ideal).toBe(0);
    expect(kv.slotStats().liveGroups).toBe(live);
    kv.checkInvariants();
  });

  it('a run crossing into the next id group finds that group again after its slot group went to other ids', () => {
    const kv = directory(2, 2, 1);
    // Ids 14, 15 are group 1, ids 16, 17 group 2: the walk crosses from one slot group into the next.
    kv.admitPrefill(0, -1, [14, 15, 16, 17], 1);
    expect(kv.match([14, 15, 16, 17]).ideal).toBe(4);
    // 16 and 17 were placed first and evicted by 15 and 14; retired without copies, their group's slots are freed ...
    kv.retire(16, 8);
    expect(kv.everProduced(16)).toBe(false);
    // ... and handed to ids 40, 41 (group 5).
    kv.admitPrefill(0, -1, [40, 41], 2);
    expect(kv.match([14, 15, 16, 17]).ideal).toBe(2);
    kv.admitPrefill(0, -1, [14, 15, 16, 17], 3);
    const m = kv.match([14, 15, 16, 17]);
    expect([m.ideal, m.local[0], kv.everProduced(40), kv.everProduced(16), kv.has(14, 0, 1)]).toEqual([4, 2, true, true, true]);
    expect(kv.match([40, 41]).ideal).toBe(2);
    kv.checkInvariants();
  });

  it('a block that is not retired stays produced after eviction (the ideal prefix)', () => {
    const kv = directory(2, 2, 1);
    kv.admitPrefill(0, -1, [1, 2], 1);
    kv.admitPrefill(0, -1, [100, 101], 2);
    expect(kv.has(1, 0, 1) || kv.has(1, 0, 2)).toBe(false);
    expect(kv.everProduced(1)).toBe(true);
    expect(kv.match([1, 2]).ideal).toBe(2);
    kv.checkInvariants();
  });

  it('a freed slot group is reused by new ids, which start clean', () => {
    const kv = directory(8, 8, 1);
    kv.admitPrefill(0, -1, range(0, 8), 1);
    kv.retire(0, 8);
    const before = kv.slotStats();
    for (let round = 1; round <= 50; round++) {
      const ids = range(round * 1000, 8);
      kv.admitPrefill(0, -1, ids, round + 1);
      kv.retire(ids[0]!, 8);
      kv.checkInvariants();
    }
    const after = kv.slotStats();
    expect(after.highWater).toBe(before.highWater + 8);
    expect(after.liveGroups).toBeLessThanOrEqual(2);
    // The last round's blocks are resident and produced; the first round's are forgotten.
    expect(kv.match(range(50_000, 8)).ideal).toBe(8);
    expect(kv.match(range(0, 8)).ideal).toBe(0);
  });

  it('takes ids past the trace format cap and past 2^32, and refuses what is not a safe integer', () => {
    const kv = directory();
    const big = [MAX_BLOCK_ID + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 52 + 3];
    kv.admitPrefill(0, 1, big, 1);
    for (const b of big) expect(kv.refCount(b, 0)).toBe(1);
    expect(kv.match(big).ideal).toBe(4);
    // Ids 8 apart in the low 32 bits but not equal stay apart.
    expect(kv.everProduced(2 ** 52 + 3 - 2 ** 33)).toBe(false);
    kv.checkInvariants();
    expect(() => kv.admitPrefill(0, -1, [2 ** 53], 2)).toThrow(RangeError);
    expect(() => kv.retire(-1, 2)).toThrow(RangeError);
    expect(() => kv.retire(0, 1.5)).toThrow(RangeError);
  });

  it('far more than 2^26 ids minted over a run, a few thousand live: no error, and the tables stop growing', () => {
    // Agents as the harness makes them: ids from a pool in per-owner chunks,
    // a prompt and its produced blocks from the agent's chunk, the branch
    // ended and its ids retired when the agent is done, 256 agents at once.
    // The pool reserves 2^16 ids per agent, so ids pass 2^26 a quarter of the way.
    const chunk = 2 ** 16;
    const pool = new BlockIdPool(chunk);
    const kv = directory(600, 1500, 4);
    const agents = 2 ** 12;
    const concurrent = 256;
    const firsts: number[] = [];
    let now = 0;
    let warm: ReturnType<KvDirectory['slotStats']> | null = null;
    for (let a = 0; a < agents + concurrent; a++) {
      if (a < agents) {
        const ids = pool.cursor();
        const first = ids.take();
        const prompt = [first];
        for (let k = 1; k < 24; k++) prompt.push(ids.take());
        const produced: number[] = [];
        for (let k = 0; k < 8; k++) produced.push(ids.take());
        firsts.push(first);
        kv.admitPrefill(a & 3, a, prompt, (now += 0.01));
        kv.admitDecode((a + 1) & 3, a, prompt, now);
        kv.addProduced((a + 1) & 3, a, produced, (now += 0.01));
      }
      const done = a - concurrent;
      if (done >= 0) {
        kv.endBranch(done);
        // The ids it named; now and then the whole chunk (most of it never named), as the harness retires chunks.
        kv.retire(firsts[done]!, done % 64 === 0 ? chunk : 32);
      }
      if (a === 1024) {
        kv.checkInvariants();
        warm = kv.slotStats();
      }
    }
    kv.checkInvariants();
    const end = kv.slotStats();
    expect(pool.reserve(0)).toBe(agents * chunk);
    expect(agents * chunk).toBeGreaterThanOrEqual(4 * 2 ** 26);
    // Live: what is still resident (at most 4 x 2,100 blocks, in groups of 8 ids).
    expect(end.liveGroups).toBeLessThanOrEqual(4 * 2100);
    expect(end.tableSize).toBe(warm!.tableSize);
    expect(end.mapCapacity).toBe(warm!.mapCapacity);
    expect(end.highWater).toBeLessThanOrEqual(warm!.highWater + 8 * 4 * 2100);
  });
});
