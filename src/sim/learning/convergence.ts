import type { DecodeCoefficients, PrefillCoefficients } from '../perf/coefficients.js';
import { predictDecode, predictPrefill, type PrefillSample } from './iteration-fitter.js';

/**
 * Convergence test of the online fit: two successive fits (at the ends of
 * consecutive windows) agree when no probed prediction moves by more than a
 * tolerance. Prefill is probed on the work the engine has seen (its retained
 * samples), decode on a grid of batch sizes.
 */

export type PrefillProbe = Pick<PrefillSample, 'uncachedTokens' | 'attentionPairs' | 'restoredTokens'>;

export interface DecodeProbes {
  batchSizes: readonly number[];
  tokensFed: number;
  expertRatio: number;
}

/** Largest relative change of predicted prefill times between two fits (0.01 = 1%). */
export function prefillShift(before: PrefillCoefficients, after: PrefillCoefficients, probes: readonly PrefillProbe[]): number {
  let shift = 0;
  for (const s of probes) shift = Math.max(shift, relativeChange(predictPrefill(before, s), predictPrefill(after, s)));
  return shift;
}

/** Largest relative change of predicted decode iteration times between two fits. */
export function decodeShift(before: DecodeCoefficients, after: DecodeCoefficients, probes: DecodeProbes): number {
  let shift = 0;
  for (const batchSize of probes.batchSizes) {
    const s = { batchSize, tokensFed: probes.tokensFed, expertRatio: probes.expertRatio };
    shift = Math.max(shift, relativeChange(predictDecode(before, s), predictDecode(after, s)));
  }
  return shift;
}

/** Batch sizes 1, 2, 4, ... below the limit, and the limit itself. */
export function batchSizeGrid(maxBatch: number): number[] {
  const grid: number[] = [];
  for (let b = 1; b < maxBatch; b *= 2) grid.push(b);
  grid.push(maxBatch);
  return grid;
}

function relativeChange(a: number, b: number): number {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return scale > 0 ? Math.abs(a - b) / scale : 0;
}
