import type { DecodeCoefficients, DecodeShape, PrefillCoefficients } from './coefficients.js';
import { decodeIterationTime, prefillIterationTime, type PrefillWork } from './formulas.js';

export type { PrefillWork } from './formulas.js';

/**
 * What anyone who needs an iteration time asks: the simulator (the truth,
 * with noise), the router and the policies (the engine's fitted model).
 */
export interface IterationModel {
  /** Seconds of one prefill iteration over the batch (0 for an empty batch). */
  prefillTime(batch: readonly PrefillWork[]): number;
  /** Seconds of one decode iteration with `batchSize` running requests (0 for none). */
  decodeTime(batchSize: number, meanContextTokens: number): number;
}

/**
 * The noise-free model from coefficients alone. With profile coefficients it
 * is the truth minus its context term and noise; with fitted coefficients it
 * is the engine's model, which by design has no context term.
 */
export class CoefficientModel implements IterationModel {
  constructor(
    readonly prefill: PrefillCoefficients,
    readonly decode: DecodeCoefficients,
    readonly shape: DecodeShape,
  ) {}

  prefillTime(batch: readonly PrefillWork[]): number {
    return prefillIterationTime(this.prefill, batch);
  }

  decodeTime(batchSize: number, _meanContextTokens: number): number {
    return decodeIterationTime(this.decode, this.shape, batchSize);
  }
}

/**
 * Seconds to prefill one request on an otherwise idle node. A prompt longer
 * than the node's prefill batch limit runs as chunks, one iteration each,
 * each chunk attending to the prompt before it; restored tokens are loaded
 * with the first chunk. (The attention pairs of the chunks add up to the
 * unchunked A, so only the fixed cost c0 repeats per chunk.)
 */
export function prefillAloneTime(model: IterationModel, work: PrefillWork, maxBatchTokens = Infinity): number {
  if (!(maxBatchTokens > 0)) throw new RangeError(`maxBatchTokens must be positive, got ${maxBatchTokens}`);
  if (work.uncachedTokens <= maxBatchTokens) return model.prefillTime([work]);
  let seconds = 0;
  let done = 0;
  while (done < work.uncachedTokens) {
    const chunk = Math.min(maxBatchTokens, work.uncachedTokens - done);
    seconds += model.prefillTime([
      { uncachedTokens: chunk, cachedTokens: work.cachedTokens + done, restoredTokens: done === 0 ? work.restoredTokens : 0 },
    ]);
    done += chunk;
  }
  return seconds;
}
