import type { PrefillWork } from '../perf/formulas.js';

/** The noise-free truth of an iteration, as the scorer asks it. */
export interface TruthView {
  prefillTime(batch: readonly PrefillWork[]): number;
  decodeTime(batchSize: number, meanContextTokens: number): number;
}

export interface ScoreTotals {
  prefillSingle: { sum: number; count: number };
  prefillBatch: { sum: number; count: number };
  decode: { sum: number; count: number };
}

/**
 * The harness side of online learning: it scores the engine's predictions
 * against the noise-free truth. It is the only part that reads the truth, and
 * the engine never reads it back. Each iteration the engine runs after its
 * kind converged is scored once: |predicted - truth| / truth, where the truth
 * includes the decode context term the engine's model lacks but not the
 * noise (so the error is the model's, not the measurement's). These are the
 * iterations the cluster really ran, in the proportions it ran them, not a
 * synthetic set.
 */
export class LearningScorer {
  private readonly totals = new Map<string, ScoreTotals>();

  prefill(kind: string, truth: TruthView, batch: readonly PrefillWork[], predicted: number): void {
    const actual = truth.prefillTime(batch);
    if (!(actual > 0)) return;
    const t = this.of(kind);
    const slot = batch.length === 1 ? t.prefillSingle : t.prefillBatch;
    slot.sum += Math.abs(predicted - actual) / actual;
    slot.count++;
  }

  decode(kind: string, truth: TruthView, batchSize: number, meanContextTokens: number, predicted: number): void {
    const actual = truth.decodeTime(batchSize, meanContextTokens);
    if (!(actual > 0)) return;
    const t = this.of(kind).decode;
    t.sum += Math.abs(predicted - actual) / actual;
    t.count++;
  }

  totalsOf(kind: string): ScoreTotals {
    return this.of(kind);
  }

  private of(kind: string): ScoreTotals {
    let t = this.totals.get(kind);
    if (!t) {
      t = { prefillSingle: { sum: 0, count: 0 }, prefillBatch: { sum: 0, count: 0 }, decode: { sum: 0, count: 0 } };
      this.totals.set(kind, t);
    }
    return t;
  }
}
