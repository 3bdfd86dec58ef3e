import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { CopyIndex } from '../../../src/sim/kv/copy-index.js';

describe('CopyIndex', () => {
  it('agrees with a Map under random adds and deletes, through rehashes', () => {
    const rng = new Rng(7);
    const index = new CopyIndex(2);
    const model = new Map<number, number>();
    for (let step = 0; step < 40_000; step++) {
      // A small key space, so clusters form and deletions shift entries back.
      const block = rng.int(0, 3000);
      const node = rng.int(0, 30);
      const key = block * 32 + node;
      if (model.has(key) && rng.chance(0.6)) {
        index.delete(block, node);
        model.delete(key);
      } else if (!model.has(key)) {
        index.add(block, node, step);
        model.set(key, step);
      }
      // Plain comparisons: expect() per probe would dominate the run time.
      if (index.get(block, node) !== (model.get(key) ?? -1)) throw new Error(`step ${step}: wrong copy for ${key}`);
      if (index.size !== model.size) throw new Error(`step ${step}: size ${index.size} != ${model.size}`);
      if (step % 97 === 0) {
        for (const [k, v] of model) if (index.get(Math.floor(k / 32), k % 32) !== v) throw new Error(`step ${step}: lost ${k}`);
      }
    }
    expect(index.get(2 ** 26 - 1, 31)).toBe(-1);
  });

  it('keeps ids and node ids apart: large ids on thousands of nodes do not collide', () => {
    const index = new CopyIndex(2);
    const ids = [0, 1, 2 ** 23 - 1, 2 ** 26 - 1];
    const nodes = [0, 1, 31, 32, 1023, 4095];
    let v = 0;
    for (const id of ids) for (const node of nodes) index.add(id, node, v++);
    v = 0;
    for (const id of ids) for (const node of nodes) expect(index.get(id, node)).toBe(v++);
    // Packed as id * 32 + node, (1, 0) and (0, 32) would be one key.
    index.delete(0, 32);
    expect([index.get(0, 32), index.get(1, 0), index.size]).toEqual([-1, nodes.length, ids.length * nodes.length - 1]);
  });
});
