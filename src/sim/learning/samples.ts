import type { DecodeCoefficients, PrefillCoefficients } from '../perf/coefficients.js';
import { attentionPairs, prefillTimeOfSums, type PrefillWork } from '../perf/formulas.js';

/** The measured iterations the fitter learns from, their features, and the model's prediction of them. */

/** One measured prefill iteration, as sums over the requests of its batch. */
export interface PrefillSample {
  /** Simulation time of the iteration (seconds); selects its window. */
  at: number;
  /** Requests in the batch (1 = single-request prefill). */
  requests: number;
  /** sum t_uc. */
  uncachedTokens: number;
  /** sum A, A = t_uc*t_c + t_uc*(t_uc+1)/2. */
  attentionPairs: number;
  /** sum t_rst. */
  restoredTokens: number;
  /** sum t_c; not used by the fit (the attention pairs carry it). */
  cachedTokens?: number;
  /** Measured duration (seconds). */
  seconds: number;
}

/** One measured decode iteration. */
export interface DecodeSample {
  /** Simulation time of the iteration (seconds); selects its window. */
  at: number;
  /** B: running requests. */
  batchSize: number;
  /** t_fwd: tokens fed per request per iteration. */
  tokensFed: number;
  /** k/E: share of routed experts each token activates. */
  expertRatio: number;
  /** Measured duration (seconds). */
  seconds: number;
  /** Mean context of the batch; not used by the fit (for evaluating against the truth). */
  meanContextTokens?: number;
}

/** A prefill sample from the batch an iteration ran. */
export function prefillSampleOf(at: number, batch: readonly PrefillWork[], seconds: number): PrefillSample {
  let uncachedTokens = 0;
  let pairs = 0;
  let restoredTokens = 0;
  let cachedTokens = 0;
  for (const w of batch) {
    uncachedTokens += w.uncachedTokens;
    pairs += attentionPairs(w.uncachedTokens, w.cachedTokens);
    restoredTokens += w.restoredTokens;
    cachedTokens += w.cachedTokens;
  }
  return { at, requests: batch.length, uncachedTokens, attentionPairs: pairs, restoredTokens, cachedTokens, seconds };
}

export function isDecodeSample(sample: PrefillSample | DecodeSample): sample is DecodeSample {
  return 'batchSize' in sample;
}

/** phi(B) of a decode sample. */
export function sampleCoverage(s: Pick<DecodeSample, 'batchSize' | 'tokensFed' | 'expertRatio'>): number {
  return 1 - Math.pow(1 - s.expertRatio, s.tokensFed * s.batchSize);
}

export function predictPrefill(c: PrefillCoefficients, s: Omit<PrefillSample, 'seconds' | 'at' | 'requests'>): number {
  return prefillTimeOfSums(c, s.uncachedTokens, s.attentionPairs, s.restoredTokens);
}

export function predictDecode(d: DecodeCoefficients, s: Pick<DecodeSample, 'batchSize' | 'tokensFed' | 'expertRatio'>): number {
  return d.d0 + d.d1 * sampleCoverage(s) + d.d2 * s.batchSize;
}

/** The prefill features of a sample in coefficient order: 1, sum t_uc, sum A, sum t_rst. */
export function prefillFeatures(s: Pick<PrefillSample, 'uncachedTokens' | 'attentionPairs' | 'restoredTokens'>): number[] {
  return [1, s.uncachedTokens, s.attentionPairs, s.restoredTokens];
}

/** The decode features in coefficient order: 1, phi(B), B. */
export function decodeFeatures(s: Pick<DecodeSample, 'batchSize' | 'tokensFed' | 'expertRatio'>): number[] {
  return [1, sampleCoverage(s), s.batchSize];
}
