import { describe, expect, it } from 'vitest';
import { Archive, IslandSet } from '../../../src/evolve/archive/index.js';
import { ringMigrate } from '../../../src/evolve/migration/index.js';
import { cand } from './helpers.js';

/** Equal fitness is not progress: different code with the same T_total never displaces an elite. */
const F = { rescheduleCount: 4, schedCpuMsPerCall: 0.04, nodesSwitchedPerReschedule: 0 };

describe('equal fitness is not better', () => {
  it('a challenger with equal fitness and different code does not replace the elite', () => {
    const archive = new Archive();
    expect(archive.consider(cand('1', 634.116, F, 'code-a'))).toBe('new-cell');
    expect(archive.consider(cand('2', 634.116, F, 'code-b'))).toBe('rejected');
    const cell = archive.space.cellOf(F);
    expect(archive.get(cell)).toMatchObject({ id: '1', codeHash: 'code-a' });
    expect(archive.hasHash('code-b')).toBe(false);
    // Strictly better by the smallest step does replace it.
    expect(archive.consider(cand('3', 634.116 - 1e-9, F, 'code-c'))).toBe('replaced');
    expect(archive.get(cell)?.id).toBe('3');
  });

  it('the best so far stays the earlier of two equal elites, whatever cells they hold', () => {
    const islands = new IslandSet({ islands: 2 });
    islands.add(0, cand('5', 100, F, 'h5'));
    islands.add(1, cand('9', 100, { ...F, rescheduleCount: 0 }, 'h9'));
    islands.add(1, cand('7', 100, { ...F, rescheduleCount: 50 }, 'h7'));
    expect(islands.bestOverall()?.id).toBe('5');
  });

  it('a migrant with equal fitness does not take its neighbour\'s cell', () => {
    const islands = new IslandSet({ islands: 2 });
    islands.add(0, cand('1', 50, F, 'ha'));
    islands.add(1, cand('2', 50, F, 'hb'));
    expect(ringMigrate(islands, 10, { everyIterations: 10 })).toEqual([]);
    expect(islands.island(1).get(islands.space.cellOf(F))?.id).toBe('2');
    expect(islands.island(0).get(islands.space.cellOf(F))?.id).toBe('1');
  });
});
