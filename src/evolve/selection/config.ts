import { z } from 'zod';
import { parseOrThrow } from '../../common/validate.js';

/**
 * How parents are drawn from an island:
 * - exploitRatio: a tournament among the island's elites (pressure toward
 *   good code, but not always the single best, which would collapse the
 *   island onto one lineage);
 * - exploreRatio: a uniformly random occupied cell (gives behaviours that are
 *   not yet competitive a chance to improve);
 * - the remainder (1 - exploit - explore): the island's best outright.
 * Defaults 0.7 / 0.2 / 0.1.
 */
export const SelectionConfigSchema = z
  .strictObject({
    exploitRatio: z.number().min(0).max(1).default(0.7),
    exploreRatio: z.number().min(0).max(1).default(0.2),
    /** Elites drawn per exploitation tournament; the best of them is the parent. */
    tournamentSize: z.number().int().min(1).max(64).default(3),
  })
  // A small tolerance so 0.7 + 0.3 (0.9999999999999999 or 1.0000000000000002) is accepted.
  .refine((c) => c.exploitRatio + c.exploreRatio <= 1 + 1e-9, {
    message: 'exploitRatio + exploreRatio must not exceed 1',
    path: ['exploreRatio'],
  });
export type SelectionInput = z.input<typeof SelectionConfigSchema>;
export type SelectionConfig = z.output<typeof SelectionConfigSchema>;

/** Elites shown to the mutator beside the parent. */
export const InspirationConfigSchema = z.strictObject({
  count: z.number().int().min(0).max(32).default(2),
});
export type InspirationInput = z.input<typeof InspirationConfigSchema>;
export type InspirationConfig = z.output<typeof InspirationConfigSchema>;

/** Invalid ratios (negative, above 1, summing above 1) are an InputError naming the field. */
export function resolveSelectionConfig(input: SelectionInput = {}, field = 'selection'): SelectionConfig {
  return parseOrThrow(SelectionConfigSchema, input, { field });
}

export function resolveInspirationConfig(input: InspirationInput = {}, field = 'inspirations'): InspirationConfig {
  return parseOrThrow(InspirationConfigSchema, input, { field });
}
