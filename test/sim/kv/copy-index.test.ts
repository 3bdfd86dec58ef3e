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
});
