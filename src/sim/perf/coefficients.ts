import { z } from 'zod';

/**
 * Coefficient contracts of the iteration-time model. They are shared by the
 * truth (from a model profile) and by the engine's fitted model (non-negative
 * least squares), so they accept zero: a fit may drop a term. Units are
 * seconds, seconds per token, and seconds per query-key pair.
 */

const nonNegative = z.number().min(0);

/** T_P = c0 + c1*sum(t_uc) + c2*sum(A) + c3*sum(t_rst). */
export const PrefillCoefficientsSchema = z.object({
  /** Fixed cost of one prefill iteration (launch, TP all-reduce setup, sampling). */
  c0: nonNegative,
  /** Per uncached token: projections and MoE layers, linear in new tokens. */
  c1: nonNegative,
  /** Per query-key pair A = t_uc*t_c + t_uc*(t_uc+1)/2: attention. */
  c2: nonNegative,
  /** Per token restored from own host memory and not hidden under compute. */
  c3: nonNegative,
});
export type PrefillCoefficients = z.infer<typeof PrefillCoefficientsSchema>;

/** T_D(B) = d0 + d1*phi(B) + d2*B. */
export const DecodeCoefficientsSchema = z.object({
  /** Fixed cost: dense weights, attention weights, launch and communication. */
  d0: nonNegative,
  /** Reading every routed expert once (phi = 1): the memory-bound MoE cost. */
  d1: nonNegative,
  /** Per running request: its tokens' compute, sampling, draft verification. */
  d2: nonNegative,
});
export type DecodeCoefficients = z.infer<typeof DecodeCoefficientsSchema>;

/**
 * The truth-only context term: perToken * B * meanContextTokens seconds.
 * Kept apart from DecodeCoefficients because the engine's fitted model does
 * not have it (the calibration calls the effect small, 2-7%), so the fit
 * absorbs it as error.
 */
export const DecodeContextTermSchema = z.object({
  perToken: nonNegative,
});
export type DecodeContextTerm = z.infer<typeof DecodeContextTermSchema>;

/** What phi(B) needs: k of E routed experts per token, t_fwd tokens fed per request. */
export const DecodeShapeSchema = z
  .object({
    routedExperts: z.number().int().positive(),
    expertsPerToken: z.number().int().positive(),
    tokensFed: z.number().positive(),
  })
  .refine((s) => s.expertsPerToken <= s.routedExperts, {
    message: 'expertsPerToken must not exceed routedExperts',
    path: ['expertsPerToken'],
  });
export type DecodeShape = z.infer<typeof DecodeShapeSchema>;
