import type { DecodeCoefficients, DecodeContextTerm, DecodeShape, PrefillCoefficients } from './coefficients.js';

/**
 * The iteration-time formulas of ARCHITECTURE.md section 3, as pure
 * functions of coefficients. Token counts may be fractional (planners pass
 * mean workloads).
 */

/** One request's part of a prefill batch. */
export interface PrefillWork {
  /** t_uc: prompt tokens whose KV must be computed. */
  uncachedTokens: number;
  /** t_c: prefix tokens whose KV is already on the GPU (or restored/fetched). */
  cachedTokens: number;
  /** t_rst: tokens of the cached prefix restored from this node's host memory. */
  restoredTokens: number;
}

/** A = t_uc*t_c + t_uc*(t_uc+1)/2: query-key pairs of causal attention over new tokens. */
export function attentionPairs(uncachedTokens: number, cachedTokens: number): number {
  return uncachedTokens * cachedTokens + (uncachedTokens * (uncachedTokens + 1)) / 2;
}

/** T_P of one iteration; an empty batch runs no iteration and takes 0. */
export function prefillIterationTime(c: PrefillCoefficients, batch: readonly PrefillWork[]): number {
  if (batch.length === 0) return 0;
  let uncached = 0;
  let pairs = 0;
  let restored = 0;
  for (const w of batch) {
    uncached += w.uncachedTokens;
    pairs += attentionPairs(w.uncachedTokens, w.cachedTokens);
    restored += w.restoredTokens;
  }
  return prefillTimeOfSums(c, uncached, pairs, restored);
}

/**
 * T_P = c0 + c1*sum(t_uc) + c2*sum(A) + c3*sum(t_rst), from the batch's sums:
 * the one definition of the prefill formula on the host (the truth, the
 * engine's models and the fitter's predictions all call it). The policy
 * stdlib's prefillRate (JS source evaluated in the sandbox) codes the same
 * expression for one mean request; test/sim/perf/formulas.test.ts pins the
 * two equal.
 */
export function prefillTimeOfSums(c: PrefillCoefficients, uncachedTokens: number, attentionPairs: number, restoredTokens: number): number {
  return c.c0 + c.c1 * uncachedTokens + c.c2 * attentionPairs + c.c3 * restoredTokens;
}

/**
 * phi(B) = 1 - (1 - k/E)^(t_fwd*B): the expected share of routed experts that
 * at least one of the t_fwd*B tokens of the iteration activates, i.e. the share
 * of expert weights read from HBM. 0 at B = 0, tends to 1 as B grows.
 */
export function expertCoverage(batchSize: number, shape: DecodeShape): number {
  return 1 - Math.pow(1 - shape.expertsPerToken / shape.routedExperts, shape.tokensFed * batchSize);
}

/** T_D(B) = d0 + d1*phi(B) + d2*B; 0 for an empty batch, which runs no iteration. */
export function decodeIterationTime(d: DecodeCoefficients, shape: DecodeShape, batchSize: number): number {
  if (batchSize <= 0) return 0;
  return d.d0 + d.d1 * expertCoverage(batchSize, shape) + d.d2 * batchSize;
}

/**
 * The truth's extra decode time from context length: each running request's
 * sparse-attention indexer scans its whole context, so the cost grows with
 * B times the mean context.
 */
export function decodeContextTime(term: DecodeContextTerm, batchSize: number, meanContextTokens: number): number {
  if (batchSize <= 0) return 0;
  return term.perToken * batchSize * meanContextTokens;
}

/** TPOT seen by a request in a decode batch: one iteration yields t_acc tokens. */
export function timePerOutputToken(iterationSeconds: number, tokensAccepted: number): number {
  return iterationSeconds / tokensAccepted;
}
