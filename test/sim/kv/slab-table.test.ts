import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { SlabTable } from '../../../src/sim/kv/slab-table.js';
import { KvDirectory } from '../../../src/sim/kv/index.js';

describe('SlabTable', () => {
  it('agrees with a Map under random adds and deletes, growing past its first groups', () => {
    const rng = new Rng(11);
    const nodes = 9;
    const table = new SlabTable(nodes);
    const model = new Map<number, number>();
    for (let step = 0; step < 40_000; step++) {
      // Groups well past the first allocation (4,096 groups), so the table grows several times.
      const group = rng.chance(0.5) ? rng.int(0, 50) : rng.int(0, 30_000);
      const node = rng.int(0, nodes - 1);
      const key = group * nodes + node;
      if (model.has(key) && rng.chance(0.6)) {
        table.delete(group, node);
        model.delete(key);
      } else if (!model.has(key)) {
        table.add(group, node, step);
        model.set(key, step);
      }
      if (table.get(group, node) !== (model.get(key) ?? -1)) throw new Error(`step ${step}: wrong slab for ${group}/${node}`);
      if (table.size !== model.size) throw new Error(`step ${step}: size ${table.size} != ${model.size}`);
      if (step % 97 === 0) {
        for (const [k, v] of model) if (table.get(Math.floor(k / nodes), k % nodes) !== v) throw new Error(`step ${step}: lost ${k}`);
      }
    }
    // Slab 0 is a value like any other, and groups past the table are absent.
    table.add(1, 0, 0);
    expect([table.get(1, 0), table.get(10_000_000, 3)]).toEqual([0, -1]);
  });
});

describe('KV directory with more live blocks than the slab table first holds', () => {
  it('finds every copy of prompts spanning tens of thousands of blocks, across nodes, and frees them', () => {
    // 3 nodes: the flat slab table; 60,000 live blocks are 7,500 slot groups, past its first 4,096.
    const kv = new KvDirectory({ nodeCount: 3, l1CapacityBlocks: [70_000, 70_000, 100], l2CapacityBlocks: [70_000, 70_000, 200], eviction: 'refcount' });
    const prompt = Array.from({ length: 60_000 }, (_, i) => 5 + i);
    kv.admitPrefill(0, 1, prompt, 1);
    kv.admitPrefill(1, 2, prompt.slice(0, 30_000), 2);
    // A node without most of the prompt's blocks: its lookups miss group after group.
    kv.admitPrefill(2, 3, prompt, 3);
    kv.checkInvariants();
    const m = kv.match(prompt);
    // Node 2's tiers keep the prompt's leading 100 (L1) and 200 (L2) blocks: it was placed last block first.
    expect([m.gpu[0], m.gpu[1], m.gpu[2], m.local[2], m.pool, m.ideal]).toEqual([60_000, 30_000, 100, 200, 60_000, 60_000]);
    expect([kv.refCount(5, 0), kv.refCount(5 + 59_999, 0), kv.refCount(5 + 29_999, 1), kv.refCount(5 + 30_000, 1)]).toEqual([1, 1, 1, 0]);
    // Branch 3 counts all of the prompt on node 2, resident or not.
    expect([kv.has(5, 2, 1), kv.has(5 + 59_999, 2, 1), kv.refCount(5 + 59_999, 2)]).toEqual([true, false, 1]);
    kv.endBranch(1);
    kv.endBranch(2);
    kv.endBranch(3);
    expect([kv.refCount(5, 0), kv.refCount(5, 2), kv.used(0, 1), kv.used(1, 2)]).toEqual([0, 0, 60_000, 30_000]);
    kv.clearNode(0);
    kv.clearNode(1);
    kv.clearNode(2);
    kv.checkInvariants();
    expect(kv.stats().copies).toBe(0);
  });
});
