import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import { IslandSet } from '../../../src/evolve/archive/index.js';
import { isMigrationIteration, resolveMigrationConfig, ringMigrate } from '../../../src/evolve/migration/index.js';
import { cand } from '../archive/helpers.js';

/** Island i holds one elite `best<i>` with fitness 10 + i, each in a different cell. */
function ring(n: number): IslandSet {
  const islands = new IslandSet({ islands: n });
  for (let i = 0; i < n; i++) islands.add(i, cand(`best${i}`, 10 + i, { rescheduleCount: [0, 1, 3, 7, 16, 41][i % 6]! }));
  return islands;
}

describe('migration config', () => {
  it('defaults to every 10 iterations; a bad period is an InputError', () => {
    expect(resolveMigrationConfig()).toEqual({ everyIterations: 10 });
    expect(() => resolveMigrationConfig({ everyIterations: 0 })).toThrow(InputError);
    expect(() => resolveMigrationConfig({ everyIterations: 2.5 })).toThrow(InputError);
    expect(() => ringMigrate(ring(2), 10, { everyIterations: -1 })).toThrow(InputError);
  });
});

describe('ringMigrate', () => {
  it('runs only on positive multiples of the period', () => {
    expect([0, 1, 9, 10, 15, 20, 30].filter((i) => isMigrationIteration(i, 10))).toEqual([10, 20, 30]);
    for (const iteration of [0, 1, 5, 9, 11, 19]) expect(ringMigrate(ring(4), iteration)).toEqual([]);
    expect(ringMigrate(ring(4), 10)).toHaveLength(4);
    expect(ringMigrate(ring(4), 3, { everyIterations: 3 })).toHaveLength(4);
    expect(() => ringMigrate(ring(4), -10)).toThrow(RangeError);
  });

  it('copies each island best to island (i + 1) % N, one hop per round', () => {
    const islands = ring(4);
    const records = ringMigrate(islands, 10);
    expect(records).toEqual([
      { iteration: 10, fromIsland: 0, toIsland: 1, candidateId: 'best0', outcome: 'new-cell' },
      { iteration: 10, fromIsland: 1, toIsland: 2, candidateId: 'best1', outcome: 'new-cell' },
      { iteration: 10, fromIsland: 2, toIsland: 3, candidateId: 'best2', outcome: 'new-cell' },
      { iteration: 10, fromIsland: 3, toIsland: 0, candidateId: 'best3', outcome: 'new-cell' },
    ]);
    // best0 reached island 1 only, not 2 and 3 in the same round.
    expect(islands.all().map((a) => a.elites().map((e) => e.id))).toEqual([
      ['best0', 'best3'],
      ['best0', 'best1'],
      ['best1', 'best2'],
      ['best2', 'best3'],
    ]);
    // Next round: island 1's best is now best0, which moves on to island 2;
    // island 0's best (best0) is skipped because island 1 already holds it.
    const next = ringMigrate(islands, 20);
    expect(next.map((m) => `${m.fromIsland}->${m.toIsland}:${m.candidateId}`)).toEqual(['1->2:best0', '2->3:best1', '3->0:best2']);
  });

  it('never migrates code the destination already holds', () => {
    const islands = ring(3);
    expect(ringMigrate(islands, 10)).toHaveLength(3);
    for (let it = 20; it <= 100; it += 10) ringMigrate(islands, it);
    // After enough rounds best0 is everywhere; migrating again copies nothing.
    expect(islands.all().every((a) => a.hasHash('h-best0'))).toBe(true);
    expect(ringMigrate(islands, 110)).toEqual([]);
    for (const archive of islands.all()) {
      const hashes = archive.elites().map((e) => e.codeHash);
      expect(new Set(hashes).size).toBe(hashes.length);
    }
  });

  it('the copy enters by the normal rule: it does not displace a better elite in its cell', () => {
    const islands = new IslandSet({ islands: 2 });
    const cell = { rescheduleCount: 5 };
    islands.add(0, cand('weak', 50, cell));
    islands.add(1, cand('strong', 5, cell));
    const records = ringMigrate(islands, 10);
    // strong (1 -> 0) replaces weak; weak (0 -> 1) is rejected and not recorded.
    expect(records).toEqual([{ iteration: 10, fromIsland: 1, toIsland: 0, candidateId: 'strong', outcome: 'replaced' }]);
    expect(islands.island(1).elites().map((e) => e.id)).toEqual(['strong']);
  });

  it('does nothing with one island or empty islands', () => {
    expect(ringMigrate(ring(1), 10)).toEqual([]);
    const islands = new IslandSet({ islands: 3 });
    islands.add(1, cand('a', 1));
    expect(ringMigrate(islands, 10)).toEqual([{ iteration: 10, fromIsland: 1, toIsland: 2, candidateId: 'a', outcome: 'new-cell' }]);
  });
});
