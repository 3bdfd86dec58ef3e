import type { PrefillWork } from '../perf/formulas.js';

/**
 * What the engine keeps measuring once its coefficients are fitted: only the
 * workload-dependent inputs of the model (new tokens per prefill iteration,
 * the share of the cached prefix restored from host memory, the decode batch
 * size), plus how measured times compare with the frozen model's predictions
 * (a drift check; the coefficients are not refitted).
 */
export interface WorkloadMeasures {
  prefillIterations: number;
  /** Mean sum of t_uc per prefill iteration. */
  meanUncachedTokens: number;
  /** Mean requests per prefill iteration. */
  meanPrefillBatch: number;
  /** sum t_rst / sum t_c over the iterations: the share of cached prefix restored from host memory. */
  restoredShare: number;
  decodeEpochs: number;
  /** Mean running requests per decode epoch. */
  meanDecodeBatch: number;
  /** Mean of measured / predicted iteration time, per phase (1 = no bias; the noise averages out). */
  measuredOverPredicted: { prefill: number; decode: number };
}

export class WorkloadMeter {
  private prefillCount = 0;
  private uncached = 0;
  private requests = 0;
  private cached = 0;
  private restored = 0;
  private prefillRatio = 0;
  private decodeCount = 0;
  private batch = 0;
  private decodeRatio = 0;

  prefill(batch: readonly PrefillWork[], seconds: number, predicted: number): void {
    this.prefillCount++;
    this.requests += batch.length;
    for (const w of batch) {
      this.uncached += w.uncachedTokens;
      this.cached += w.cachedTokens;
      this.restored += w.restoredTokens;
    }
    if (predicted > 0) this.prefillRatio += seconds / predicted;
  }

  decode(batchSize: number, seconds: number, predicted: number): void {
    this.decodeCount++;
    this.batch += batchSize;
    if (predicted > 0) this.decodeRatio += seconds / predicted;
  }

  measures(): WorkloadMeasures {
    const per = (sum: number, n: number): number => (n > 0 ? sum / n : 0);
    return {
      prefillIterations: this.prefillCount,
      meanUncachedTokens: per(this.uncached, this.prefillCount),
      meanPrefillBatch: per(this.requests, this.prefillCount),
      restoredShare: per(this.restored, this.cached),
      decodeEpochs: this.decodeCount,
      meanDecodeBatch: per(this.batch, this.decodeCount),
      measuredOverPredicted: { prefill: per(this.prefillRatio, this.prefillCount), decode: per(this.decodeRatio, this.decodeCount) },
    };
  }
}
