import type { IslandSet } from '../archive/index.js';
import { resolveMigrationConfig, type MigrationInput } from './config.js';

/** One copy of an elite to another island, as the lineage store records it. */
export interface Migration {
  iteration: number;
  fromIsland: number;
  toIsland: number;
  candidateId: string;
  /** How the copy entered the destination archive. */
  outcome: 'new-cell' | 'replaced';
}

/** Migration happens after iterations M, 2M, 3M, ... (never at 0, when nothing has evolved yet). */
export function isMigrationIteration(iteration: number, everyIterations: number): boolean {
  return iteration > 0 && iteration % everyIterations === 0;
}

/**
 * Ring migration: on a migration iteration, each island's best is offered to
 * island (i + 1) % N. All bests are taken before any copy lands, so a migrant
 * moves one hop per round rather than racing round the ring in one call.
 * A destination that already holds the code is skipped (no duplicates), and
 * the copy enters by the archive's normal rule, so it lands only if its cell
 * is empty or held by something worse: migration can never make an island
 * worse. Returns the copies that landed.
 */
export function ringMigrate(islands: IslandSet, iteration: number, options: MigrationInput = {}): Migration[] {
  const { everyIterations } = resolveMigrationConfig(options);
  if (!Number.isInteger(iteration) || iteration < 0) throw new RangeError(`iteration must be a non-negative integer, got ${iteration}`);
  const n = islands.count;
  if (n < 2 || !isMigrationIteration(iteration, everyIterations)) return [];

  const bests = islands.all().map((archive) => archive.best());
  const migrations: Migration[] = [];
  bests.forEach((best, fromIsland) => {
    if (!best) return;
    const toIsland = (fromIsland + 1) % n;
    const destination = islands.island(toIsland);
    if (destination.hasHash(best.codeHash)) return;
    const outcome = destination.consider(best);
    if (outcome !== 'rejected') migrations.push({ iteration, fromIsland, toIsland, candidateId: best.id, outcome });
  });
  return migrations;
}
