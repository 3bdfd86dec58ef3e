import { z } from 'zod';
import { parseOrThrow } from '../common/validate.js';
import { DEFAULT_FEATURE_BINS, FeatureSpaceSchema, IslandSet, type Candidate } from './archive/index.js';
import { MigrationConfigSchema } from './migration/index.js';
import { InspirationConfigSchema, SelectionConfigSchema } from './selection/index.js';

/**
 * Everything that shapes the population, in one validated object for the
 * evolution loop and the CLI. Each part keeps its own schema and defaults in
 * its folder; this only puts them side by side.
 */
export const PopulationConfigSchema = z.strictObject({
  islands: z.number().int().min(1).max(256).default(4),
  features: FeatureSpaceSchema.default(DEFAULT_FEATURE_BINS),
  selection: SelectionConfigSchema.prefault({}),
  inspirations: InspirationConfigSchema.prefault({}),
  migration: MigrationConfigSchema.prefault({}),
});
export type PopulationInput = z.input<typeof PopulationConfigSchema>;
export type PopulationConfig = z.output<typeof PopulationConfigSchema>;

export function resolvePopulationConfig(input: PopulationInput = {}, field = 'population'): PopulationConfig {
  return parseOrThrow(PopulationConfigSchema, input, { field });
}

export function createIslands(config: PopulationConfig): IslandSet {
  return new IslandSet({ islands: config.islands, features: config.features });
}

/**
 * Start a run: every evaluated seed (from `seeds/`, or the best candidates
 * of an earlier run for a warm start) is offered to every island, so each
 * island begins from the whole starting set and diverges by its own
 * lineage. Returns how many offers an island accepted (new cell or replacement).
 */
export function seedIslands(islands: IslandSet, candidates: readonly Candidate[]): number {
  let filled = 0;
  for (const candidate of candidates) {
    for (let i = 0; i < islands.count; i++) if (islands.add(i, candidate) !== 'rejected') filled++;
  }
  return filled;
}
