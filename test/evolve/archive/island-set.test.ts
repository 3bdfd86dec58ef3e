import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import { Rng } from '../../../src/common/rng.js';
import { IslandSet } from '../../../src/evolve/archive/index.js';
import { cand, randomCandidate } from './helpers.js';

describe('IslandSet', () => {
  it('has 4 islands by default, over the default feature space', () => {
    const islands = new IslandSet();
    expect(islands.count).toBe(4);
    expect(islands.all().every((a) => a.size === 0)).toBe(true);
    expect(islands.bestOverall()).toBeUndefined();
    expect(() => islands.island(4)).toThrow(RangeError);
    expect(() => islands.island(-1)).toThrow(RangeError);
    expect(() => islands.island(1.5)).toThrow(RangeError);
  });

  it('rejects a bad config with an InputError', () => {
    expect(() => new IslandSet({ islands: 0 })).toThrow(InputError);
    expect(() => new IslandSet({ islands: 2.5 })).toThrow(InputError);
    expect(() => new IslandSet({ features: { features: [{ name: 'a', edges: [3, 3] }] } })).toThrow(InputError);
  });

  it('add offers to one island and marks the code seen whatever the outcome', () => {
    const islands = new IslandSet({ islands: 3 });
    expect(islands.add(1, cand('a', 10))).toBe('new-cell');
    expect(islands.add(1, cand('b', 20))).toBe('rejected');
    expect(islands.seen('h-a') && islands.seen('h-b')).toBe(true);
    expect(islands.island(0).size + islands.island(2).size).toBe(0);
    expect(islands.seenCount).toBe(2);
  });

  it('markSeen returns false the second time: the caller skips duplicate evaluations', () => {
    const islands = new IslandSet();
    expect(islands.seen('x')).toBe(false);
    expect(islands.markSeen('x')).toBe(true);
    expect(islands.markSeen('x')).toBe(false);
    expect(islands.seen('x')).toBe(true);
  });

  it('bestOverall is the lowest fitness over all islands (ties by id)', () => {
    const islands = new IslandSet({ islands: 3 });
    islands.add(0, cand('b', 5));
    islands.add(2, cand('a', 5, { rescheduleCount: 9 }));
    islands.add(1, cand('c', 7));
    expect(islands.bestOverall()?.id).toBe('a');
    islands.add(1, cand('d', 1, { rescheduleCount: 50 }));
    expect(islands.bestOverall()?.id).toBe('d');
  });

  it('round-trips through JSON', () => {
    const rng = new Rng(5);
    const islands = new IslandSet({ islands: 3 });
    for (let i = 0; i < 300; i++) islands.add(i % 3, randomCandidate(rng, `c${i}`));
    islands.markSeen('evaluating');
    const restored = IslandSet.restore(JSON.parse(JSON.stringify(islands)));
    expect(restored.count).toBe(3);
    expect(JSON.stringify(restored)).toBe(JSON.stringify(islands));
    expect(restored.bestOverall()).toEqual(islands.bestOverall());
    expect(restored.seen('evaluating')).toBe(true);
    expect(restored.seenCount).toBe(islands.seenCount);
  });

  it('restore refuses islands with different feature spaces', () => {
    const snapshot = new IslandSet({ islands: 2 }).toJSON();
    snapshot.islands[1]!.features = { features: [{ name: 'a', key: 'a', edges: [1] }] };
    expect(() => IslandSet.restore(snapshot)).toThrow(InputError);
  });
});
