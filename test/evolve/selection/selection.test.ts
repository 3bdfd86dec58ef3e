import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import { Rng } from '../../../src/common/rng.js';
import { IslandSet } from '../../../src/evolve/archive/index.js';
import {
  islandForIteration,
  resolveInspirationConfig,
  resolveSelectionConfig,
  selectInspirations,
  selectParent,
  type SelectionMode,
} from '../../../src/evolve/selection/index.js';
import { cand, randomCandidate } from '../archive/helpers.js';

function populated(seed: number, perIsland = 150, islandCount = 4): IslandSet {
  const rng = new Rng(seed);
  const islands = new IslandSet({ islands: islandCount });
  for (let i = 0; i < perIsland * islandCount; i++) islands.add(i % islandCount, randomCandidate(rng, `c${i}`));
  return islands;
}

describe('selection config', () => {
  it('defaults are 0.7 exploit, 0.2 explore (0.1 best), tournament of 3, 2 inspirations', () => {
    expect(resolveSelectionConfig()).toEqual({ exploitRatio: 0.7, exploreRatio: 0.2, tournamentSize: 3 });
    expect(resolveInspirationConfig()).toEqual({ count: 2 });
  });

  it('accepts ratios summing to exactly 1 despite rounding', () => {
    expect(() => resolveSelectionConfig({ exploitRatio: 0.7, exploreRatio: 0.3 })).not.toThrow();
    expect(() => resolveSelectionConfig({ exploitRatio: 1, exploreRatio: 0 })).not.toThrow();
  });

  it('rejects negative ratios, ratios above 1, a sum above 1 and bad sizes with an InputError', () => {
    for (const bad of [
      { exploitRatio: -0.1 },
      { exploreRatio: -0.01 },
      { exploitRatio: 1.2, exploreRatio: 0 },
      { exploitRatio: 0.8, exploreRatio: 0.3 },
      { tournamentSize: 0 },
      { tournamentSize: 1.5 },
      { exploitRatio: NaN },
    ]) {
      expect(() => resolveSelectionConfig(bad)).toThrow(InputError);
    }
    expect(() => resolveSelectionConfig({ exploitRatio: 0.8, exploreRatio: 0.3 })).toThrow(/selection\.exploreRatio.*exceed 1/);
    expect(() => resolveInspirationConfig({ count: -1 })).toThrow(InputError);
    const islands = populated(1, 5);
    expect(() => selectParent(islands, 0, new Rng(1), { exploitRatio: 0.9, exploreRatio: 0.2 })).toThrow(InputError);
  });
});

describe('selectParent', () => {
  it('the same seed gives the same choices', () => {
    const islands = populated(2);
    const draw = (seed: number) => {
      const rng = new Rng(seed);
      return Array.from({ length: 200 }, (_, i) => {
        const c = selectParent(islands, i % 4, rng)!;
        return `${c.mode}:${c.island}:${c.parent.id}`;
      });
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('honours the ratios over 10,000 draws', () => {
    const islands = populated(3);
    const rng = new Rng(9);
    const counts: Record<SelectionMode, number> = { exploit: 0, explore: 0, best: 0 };
    const n = 10_000;
    for (let i = 0; i < n; i++) counts[selectParent(islands, i % 4, rng, { exploitRatio: 0.6, exploreRatio: 0.3 })!.mode]++;
    expect(counts.exploit / n).toBeCloseTo(0.6, 1);
    expect(counts.explore / n).toBeCloseTo(0.3, 1);
    expect(counts.best / n).toBeCloseTo(0.1, 1);
    // Tighter than toBeCloseTo's 0.05: about 4 standard deviations at n = 10,000.
    expect(Math.abs(counts.exploit / n - 0.6)).toBeLessThan(0.02);
    expect(Math.abs(counts.explore / n - 0.3)).toBeLessThan(0.02);
    expect(Math.abs(counts.best / n - 0.1)).toBeLessThan(0.015);

    const defaults: Record<SelectionMode, number> = { exploit: 0, explore: 0, best: 0 };
    for (let i = 0; i < n; i++) defaults[selectParent(islands, 0, rng)!.mode]++;
    expect(Math.abs(defaults.exploit / n - 0.7)).toBeLessThan(0.02);
    expect(Math.abs(defaults.explore / n - 0.2)).toBeLessThan(0.02);
  });

  it('best mode takes the island best; exploit favours good elites; explore spreads over all cells', () => {
    const islands = populated(4);
    const elites = islands.island(1).elites();
    const rng = new Rng(10);
    expect(selectParent(islands, 1, rng, { exploitRatio: 0, exploreRatio: 0 })!.parent).toBe(elites[0]);

    const rankOf = new Map(elites.map((e, i) => [e.id, i]));
    const meanRank = (options: { exploitRatio: number; exploreRatio: number }): number => {
      let sum = 0;
      for (let i = 0; i < 4000; i++) sum += rankOf.get(selectParent(islands, 1, rng, options)!.parent.id)!;
      return sum / 4000 / (elites.length - 1);
    };
    // A 3-way tournament's winner has expected rank about 1/4 of the list; uniform about 1/2.
    expect(meanRank({ exploitRatio: 1, exploreRatio: 0 })).toBeLessThan(0.32);
    expect(meanRank({ exploitRatio: 1, exploreRatio: 0 })).toBeGreaterThan(0.18);
    expect(meanRank({ exploitRatio: 0, exploreRatio: 1 })).toBeGreaterThan(0.42);
    const explored = new Set<string>();
    for (let i = 0; i < 5000; i++) explored.add(selectParent(islands, 1, rng, { exploitRatio: 0, exploreRatio: 1 })!.parent.cell);
    expect(explored.size).toBe(elites.length);
  });

  it('an empty island borrows from the next non-empty island in ring order', () => {
    const islands = new IslandSet({ islands: 4 });
    expect(selectParent(islands, 0, new Rng(1))).toBeUndefined();
    islands.add(3, cand('three', 5));
    islands.add(1, cand('one', 1));
    // From island 2 the ring goes 3, 0, 1: island 3 comes first even though island 1 holds the better elite.
    const choice = selectParent(islands, 2, new Rng(1))!;
    expect(choice.island).toBe(3);
    expect(choice.parent.id).toBe('three');
    expect(selectParent(islands, 0, new Rng(1))!.island).toBe(1);
    expect(selectParent(islands, 1, new Rng(1))!.island).toBe(1);
    expect(() => selectParent(islands, 4, new Rng(1))).toThrow(RangeError);
  });
});

describe('selectInspirations', () => {
  it('never includes the parent, has distinct hashes, and gives count elites when there are enough', () => {
    const islands = populated(5, 80);
    // Put the same code on several islands and cells, including the parent's code elsewhere.
    const rng = new Rng(6);
    for (let k = 0; k < 60; k++) islands.add(k % 4, { ...randomCandidate(rng, `dup${k}`), codeHash: `shared-${k % 3}`, fitness: 1 + k });
    for (let i = 0; i < 2000; i++) {
      const island = i % 4;
      const { parent } = selectParent(islands, island, rng)!;
      const count = rng.int(0, 6);
      const inspirations = selectInspirations(islands, island, parent, rng, { count });
      expect(inspirations).toHaveLength(count);
      expect(inspirations.some((e) => e.id === parent.id || e.codeHash === parent.codeHash)).toBe(false);
      expect(new Set(inspirations.map((e) => e.codeHash)).size).toBe(inspirations.length);
    }
  });

  it('prefers other islands and other cells', () => {
    const islands = new IslandSet({ islands: 2 });
    const here = { rescheduleCount: 0 };
    const there = { rescheduleCount: 50 };
    islands.add(0, cand('parent', 1, here));
    islands.add(0, cand('own-other-cell', 2, there));
    islands.add(1, cand('away-same-cell', 3, here));
    islands.add(1, cand('away-other-cell', 4, there));
    const parent = islands.island(0).best()!;
    const rng = new Rng(3);
    expect(selectInspirations(islands, 0, parent, rng, { count: 1 }).map((e) => e.id)).toEqual(['away-other-cell']);
    const two = selectInspirations(islands, 0, parent, rng, { count: 2 }).map((e) => e.id);
    expect(two[0]).toBe('away-other-cell');
    expect(['own-other-cell', 'away-same-cell']).toContain(two[1]);
    expect(selectInspirations(islands, 0, parent, rng, { count: 10 })).toHaveLength(3);
  });

  it('returns what there is when the population is small', () => {
    const islands = new IslandSet({ islands: 2 });
    islands.add(0, cand('p', 1));
    islands.add(1, cand('p', 1)); // the parent's own copy on another island
    const parent = islands.island(0).best()!;
    expect(selectInspirations(islands, 0, parent, new Rng(1))).toEqual([]);
  });

  it('the same seed gives the same inspirations', () => {
    const islands = populated(7, 60);
    const run = (seed: number) => {
      const rng = new Rng(seed);
      return Array.from({ length: 100 }, (_, i) => {
        const { parent } = selectParent(islands, i % 4, rng)!;
        return selectInspirations(islands, i % 4, parent, rng, { count: 3 }).map((e) => e.id);
      });
    };
    expect(run(1)).toEqual(run(1));
  });
});

describe('serialise / restore', () => {
  it('a restored population gives identical subsequent selections', () => {
    const islands = populated(8, 100);
    const restored = IslandSet.restore(JSON.parse(JSON.stringify(islands)));
    const run = (set: IslandSet) => {
      const rng = new Rng(77);
      const out: string[] = [];
      for (let i = 0; i < 500; i++) {
        const island = islandForIteration(i, set.count);
        const { parent, mode } = selectParent(set, island, rng)!;
        const insp = selectInspirations(set, island, parent, rng);
        out.push(`${mode}:${parent.id}:${insp.map((e) => e.id).join(',')}`);
      }
      return out;
    };
    expect(run(restored)).toEqual(run(islands));
  });
});

describe('islandForIteration', () => {
  it('is round-robin', () => {
    expect(Array.from({ length: 9 }, (_, i) => islandForIteration(i, 4))).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 0]);
    expect(islandForIteration(7, 1)).toBe(0);
    expect(() => islandForIteration(-1, 4)).toThrow(RangeError);
    expect(() => islandForIteration(1, 0)).toThrow(RangeError);
    expect(() => islandForIteration(0.5, 2)).toThrow(RangeError);
  });
});
