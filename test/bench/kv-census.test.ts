import { describe, expect, it } from 'vitest';
import { KvCensus, idRuns } from '../../bench/kv-replay/census.js';
import type { Call } from '../../bench/kv-replay/record.js';
import { KvDirectory } from '../../src/sim/kv/directory.js';

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function census(l1: number, l2: number, calls: Call[]): { c: KvCensus; d: KvDirectory } {
  const d = new KvDirectory({ nodeCount: 2, l1CapacityBlocks: [l1, l1], l2CapacityBlocks: [l2, l2], eviction: 'lru' });
  const c = new KvCensus(d as never);
  for (const call of calls) c.run(call);
  return { c, d };
}

describe('bench:kv-replay --census', () => {
  it('counts maximal runs of consecutive ids', () => {
    expect(idRuns([1, 2, 3, 7, 8, 10])).toBe(3);
    expect(idRuns([])).toBe(0);
  });

  it('a prompt of missing blocks is one piece to place; a second branch on part of it splits both partitions at both ends', () => {
    const { c } = census(16, 32, [
      ['admitPrefill', 0, 1, range(10, 13), 0],
      ['admitPrefill', 0, 2, [11, 12], 1],
    ]);
    const rows = c.tally.kinds.get('admitPrefill')!;
    expect(rows.blocks).toEqual([4, 2]);
    expect(rows.runs).toEqual([1, 1]);
    // Second call: residency 10 and 13 stay behind (2), counts of 10 and 13 stay 1 (2).
    expect(rows.splits).toEqual([0, 4]);
    expect(c.tally.spanOps.place).toBe(2);
    expect(c.tally.blockOps.place).toBe(6);
  });

  it('eviction from the head takes a whole placed prompt as one piece, from its deepest block', () => {
    const { c, d } = census(4, 32, [
      ['admitPrefill', 0, 1, range(100, 103), 0],
      ['admitPrefill', 0, 2, range(200, 203), 1],
    ]);
    expect(d.stats().l1Evictions).toBe(4);
    expect(c.tally.blockOps.evict).toBe(4);
    expect(c.tally.spanOps.evict).toBe(1);
    expect([c.tally.evictMiddle, c.tally.evictEnd, c.tally.evictAlone]).toEqual([0, 3, 1]);
    expect(c.tally.trims).toBe(0);
  });

  it('a prompt larger than the tier keeps its leading blocks: its deepest go as one piece', () => {
    const { c, d } = census(3, 32, [['admitPrefill', 1, -1, range(50, 55), 0]]);
    expect(d.has(50, 1, 1) && d.has(52, 1, 1) && !d.has(53, 1, 1)).toBe(true);
    expect(c.tally.blockOps.evict).toBe(3);
    expect(c.tally.spanOps.evict).toBe(1);
    expect(c.tally.selfDrops).toBe(0);
    expect(c.tally.kinds.has('admitPrefill (no branch)')).toBe(true);
  });

  it('a prompt whose resident leading blocks fill the tier places its missing deeper blocks nowhere: self-drops, one piece', () => {
    const { c, d } = census(3, 32, [
      ['admitPrefill', 1, -1, range(50, 52), 0],
      ['admitPrefill', 1, -1, range(50, 55), 1],
    ]);
    expect(d.has(50, 1, 1) && d.has(52, 1, 1) && !d.has(53, 1, 1)).toBe(true);
    expect(c.tally.selfDrops).toBe(3);
    expect(c.tally.spanOps.evict).toBe(1);
  });

  it('observes without changing what the directory does', () => {
    const calls: Call[] = [
      ['admitPrefill', 0, 1, range(10, 20), 0],
      ['addProduced', 1, 1, [21, 22], 1],
      ['admitPrefill', 1, 1, range(10, 25), 2],
      ['match', range(10, 30)],
      ['endBranch', 1],
    ];
    const { d } = census(6, 12, calls);
    const plain = new KvDirectory({ nodeCount: 2, l1CapacityBlocks: [6, 6], l2CapacityBlocks: [12, 12], eviction: 'lru' });
    for (const [name, ...args] of calls) (plain[name as 'endBranch'] as (...a: unknown[]) => void).apply(plain, args);
    expect(d.stats()).toEqual(plain.stats());
    d.checkInvariants();
  });
});
