import { z } from 'zod';
import { UsageError } from '../common/errors.js';
import { round } from '../sim/index.js';

/**
 * Workload seeds of a calibration and the statistics over them. One seed is
 * one trajectory of the closed loop: on cc with 126 agents at 4P5D the
 * throughput varies 4.5% (sd) from seed to seed, as much as a ±5% target,
 * so every figure is compared as its mean over several seeds, with its spread.
 */

/** Most seeds a calibration takes: each multiplies the runs (51 per seed). */
export const MAX_SEEDS = 64;

/** A seed list: distinct non-negative integers, at least one. */
export const SeedListSchema = z
  .array(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
  .min(1, 'at least one seed')
  .max(MAX_SEEDS, `at most ${MAX_SEEDS} seeds`)
  .refine((xs) => new Set(xs).size === xs.length, { message: 'seeds must be distinct' });

/** Check a seed list given in code (CalibrateOptions.settings.seeds); a usage error names the problem. */
export function checkSeeds(seeds: readonly number[], what = 'seeds'): number[] {
  const parsed = SeedListSchema.safeParse(seeds);
  if (!parsed.success) throw new UsageError(`${what}: ${parsed.error.issues[0]?.message ?? 'invalid'} (got ${JSON.stringify(seeds)})`);
  return parsed.data;
}

/** `--seeds 1,2,3`: comma-separated distinct non-negative integers; a one-line usage error otherwise. */
export function parseSeedList(text: string, flag = '--seeds'): number[] {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.every((p) => p === '')) throw new UsageError(`${flag} needs seeds, e.g. ${flag} 1,2,3`);
  const seeds = parts.map((p) => {
    if (!/^\d+$/.test(p) || !Number.isSafeInteger(Number(p))) throw new UsageError(`${flag}: "${p}" is not a non-negative whole number (give e.g. ${flag} 1,2,3)`);
    return Number(p);
  });
  return checkSeeds(seeds, flag);
}

/** A figure over seeds: the mean, the sample standard deviation (0 for one seed), the extremes and the values. */
export interface Spread {
  mean: number;
  sd: number;
  min: number;
  max: number;
  /** Per seed, in the order of the seed list. */
  values: number[];
}

/** Null when there is no value or one is not finite (a figure a run could not give cannot be averaged). */
export function spreadOf(values: readonly (number | null)[]): Spread | null {
  if (values.length === 0 || values.some((v) => v === null || !Number.isFinite(v))) return null;
  const xs = values as number[];
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return { mean: round(mean, 6), sd: round(sd, 6), min: Math.min(...xs), max: Math.max(...xs), values: [...xs] };
}
