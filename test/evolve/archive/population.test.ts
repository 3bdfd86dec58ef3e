import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import { DEFAULT_FEATURE_BINS } from '../../../src/evolve/archive/index.js';
import { createIslands, resolvePopulationConfig, seedIslands } from '../../../src/evolve/population.js';
import { cand } from './helpers.js';

describe('population config', () => {
  it('has the documented defaults', () => {
    expect(resolvePopulationConfig()).toEqual({
      islands: 4,
      features: DEFAULT_FEATURE_BINS,
      selection: { exploitRatio: 0.7, exploreRatio: 0.2, tournamentSize: 3 },
      inspirations: { count: 2 },
      migration: { everyIterations: 10 },
    });
  });

  it('names the bad field', () => {
    expect(() => resolvePopulationConfig({ selection: { exploitRatio: 0.9, exploreRatio: 0.2 } })).toThrow(/population\.selection\.exploreRatio/);
    expect(() => resolvePopulationConfig({ migration: { everyIterations: 0 } })).toThrow(InputError);
    expect(() => resolvePopulationConfig({ islands: 0 })).toThrow(InputError);
  });
});

describe('seedIslands', () => {
  it('offers every seed to every island and marks it seen', () => {
    const islands = createIslands(resolvePopulationConfig({ islands: 3 }));
    const accepted = seedIslands(islands, [cand('a', 10), cand('b', 5, { rescheduleCount: 9 }), cand('c', 20)]);
    // a and b take a cell on each island; c loses to a in a's cell.
    expect(accepted).toBe(6);
    for (const archive of islands.all()) expect(archive.elites().map((e) => e.id)).toEqual(['b', 'a']);
    expect(['h-a', 'h-b', 'h-c'].every((h) => islands.seen(h))).toBe(true);
  });
});
