import { z } from 'zod';
import { parseOrThrow } from '../../common/validate.js';

/**
 * Migration period. Rare enough that islands develop different lineages,
 * frequent enough that a breakthrough on one island reaches the others
 * (with N islands a best travels the whole ring in N-1 periods). Default 10.
 */
export const MigrationConfigSchema = z.strictObject({
  everyIterations: z.number().int().min(1).default(10),
});
export type MigrationInput = z.input<typeof MigrationConfigSchema>;
export type MigrationConfig = z.output<typeof MigrationConfigSchema>;

export function resolveMigrationConfig(input: MigrationInput = {}, field = 'migration'): MigrationConfig {
  return parseOrThrow(MigrationConfigSchema, input, { field });
}
