import type { PrefillWork } from './hardware.js';

/**
 * The iterations a prefill batch runs: the batch itself, or, for a single
 * request longer than the iteration budget, its chunks (SGLang-style chunked
 * prefill): each chunk attends to the prompt before it, and restored tokens
 * load with the first (as prefillAloneTime in perf/iteration-model.ts, which
 * routing predicts with).
 */
export function prefillIterations(batch: readonly PrefillWork[], maxTokens: number): PrefillWork[][] {
  const first = batch[0];
  if (batch.length !== 1 || first === undefined || first.uncachedTokens <= maxTokens) return [batch as PrefillWork[]];
  const chunks: PrefillWork[][] = [];
  for (let done = 0; done < first.uncachedTokens; done += maxTokens) {
    const uncachedTokens = Math.min(maxTokens, first.uncachedTokens - done);
    chunks.push([{ uncachedTokens, cachedTokens: first.cachedTokens + done, restoredTokens: done === 0 ? first.restoredTokens : 0 }]);
  }
  return chunks;
}
