import { z } from 'zod';
import type { Rng } from '../common/rng.js';

/**
 * A sampled quantity: a plain number is a constant, `{mean, cv}` a log-normal
 * with that mean and coefficient of variation (heavy right tail, never
 * negative, which is what tool times and token counts look like).
 */
export const distSchema = z.preprocess(
  (v) => (typeof v === 'number' ? { mean: v, cv: 0 } : v),
  z.strictObject(
    {
      mean: z.number().nonnegative().finite(),
      cv: z.number().nonnegative().finite().default(0),
    },
    { error: 'expected a number or {"mean": ..., "cv": ...}' },
  ),
);

export type Dist = z.output<typeof distSchema>;

export function sample(rng: Rng, dist: Dist): number {
  if (dist.mean === 0) return 0;
  return rng.lognormal(dist.mean, dist.cv);
}

/** A whole number drawn from `dist`, at least `min`. */
export function sampleInt(rng: Rng, dist: Dist, min = 0): number {
  return Math.max(min, Math.round(sample(rng, dist)));
}
