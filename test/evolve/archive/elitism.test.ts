import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { IslandSet, type Candidate } from '../../../src/evolve/archive/index.js';
import { ringMigrate } from '../../../src/evolve/migration/index.js';
import { createIslands, resolvePopulationConfig, seedIslands } from '../../../src/evolve/population.js';
import { islandForIteration, selectInspirations, selectParent } from '../../../src/evolve/selection/index.js';
import { randomCandidate, randomFeatures } from './helpers.js';

/**
 * The property the issue requires: the best fitness never gets worse from one
 * iteration to the next. A randomized evolution loop (seeded) with children
 * that are often worse than their parents, duplicate code, extreme features,
 * migrations and a checkpoint restore in the middle.
 */
describe('elitism', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`best overall, each island's best and each cell never get worse (seed ${seed})`, () => {
      const rng = new Rng(seed);
      const config = resolvePopulationConfig({ migration: { everyIterations: 7 } });
      let islands = createIslands(config);
      const seeds = Array.from({ length: 3 }, (_, i) => randomCandidate(rng, `seed${i}`));
      seedIslands(islands, seeds);
      for (const s of seeds) expect(islands.seen(s.codeHash)).toBe(true);

      let previousBest = islands.bestOverall()!.fitness;
      let previousIslandBest = islands.all().map((a) => a.best()?.fitness ?? Infinity);
      const cellFitness = new Map<string, number>();
      let inserted = 0;
      let duplicatesSkipped = 0;
      let migrations = 0;

      for (let iteration = 1; iteration <= 400; iteration++) {
        const island = islandForIteration(iteration, islands.count);
        const { parent } = selectParent(islands, island, rng, config.selection)!;
        const inspirations = selectInspirations(islands, island, parent, rng, config.inspirations);
        expect(inspirations.some((e) => e.id === parent.id)).toBe(false);

        // A child: often worse than its parent, sometimes code already seen.
        const child: Candidate = {
          id: `it${iteration}`,
          codeHash: rng.chance(0.15) ? parent.codeHash : rng.chance(0.1) ? `dup-${rng.int(0, 9)}` : `h-it${iteration}`,
          fitness: parent.fitness * rng.uniform(0.85, 1.4),
          features: rng.chance(0.5) ? { ...parent.features } : randomFeatures(rng),
        };
        if (!islands.markSeen(child.codeHash)) duplicatesSkipped++;
        else {
          islands.add(island, child);
          inserted++;
        }
        migrations += ringMigrate(islands, iteration, config.migration).length;

        // Halfway, continue from a checkpoint: elitism must survive a restore.
        if (iteration === 200) islands = IslandSet.restore(JSON.parse(JSON.stringify(islands)));

        const best = islands.bestOverall()!.fitness;
        expect(best).toBeLessThanOrEqual(previousBest);
        previousBest = best;
        const islandBest = islands.all().map((a) => a.best()?.fitness ?? Infinity);
        islandBest.forEach((f, i) => expect(f).toBeLessThanOrEqual(previousIslandBest[i]!));
        previousIslandBest = islandBest;
        islands.all().forEach((archive, i) => {
          const hashes = new Set<string>();
          for (const e of archive.elites()) {
            const key = `${i}/${e.cell}`;
            expect(e.fitness).toBeLessThanOrEqual(cellFitness.get(key) ?? Infinity);
            cellFitness.set(key, e.fitness);
            expect(hashes.has(e.codeHash)).toBe(false);
            hashes.add(e.codeHash);
          }
        });
      }

      // The loop really exercised what it claims to.
      expect(inserted).toBeGreaterThan(250);
      expect(duplicatesSkipped).toBeGreaterThan(20);
      expect(migrations).toBeGreaterThan(20);
      expect(previousBest).toBeLessThan(Math.min(...seeds.map((s) => s.fitness)));
    });
  }
});
