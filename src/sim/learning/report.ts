import type { DecodeCoefficients, PrefillCoefficients } from '../perf/coefficients.js';
import type { KindProgress } from './online-learner.js';
import type { EngineCoefficients } from './prior.js';
import type { ScoreTotals } from './scorer.js';
import type { WorkloadMeasures } from './workload-meter.js';

/** Mean absolute percentage errors, in percent (4.2 = 4.2%); null where nothing was scored. */
export interface MapeFigures {
  prefillSingle: number | null;
  prefillBatch: number | null;
  decode: number | null;
  /** Unweighted mean of the categories that have a figure, so that the many decode iterations do not drown the prefill ones. */
  mean: number | null;
}

export interface PhaseLearningResult {
  /** When the phase's first iteration ran (s). */
  firstSampleAtSeconds: number | null;
  convergedAtSeconds: number | null;
}

export interface KindLearningResult {
  /** When both phases had converged (s); null if one never did. */
  convergedAtSeconds: number | null;
  /** Serving seconds it took: from the kind's first iteration to convergence. */
  convergenceSeconds: number | null;
  /** Each phase: prefill usually converges first; decode needs a range of batch sizes. */
  phases: { prefill: PhaseLearningResult; decode: PhaseLearningResult };
  /** Samples the converged fits used (0 for a phase that did not converge). */
  samples: { prefill: number; decode: number };
  /** Error of each phase's fitted model on the iterations run after that phase converged. */
  mape: MapeFigures;
  /** Iterations scored. */
  scored: { prefillSingle: number; prefillBatch: number; decode: number };
  prior: EngineCoefficients;
  /** Each phase's converged fit, or null. */
  fitted: { prefill: PrefillCoefficients | null; decode: DecodeCoefficients | null };
  /** What the engine used at the end of the run (fits, or the prior for a phase that never converged). */
  current: EngineCoefficients;
  /** The truth's coefficients (the decode truth also has a context term the engine's model lacks); null if unknown. */
  truth: EngineCoefficients | null;
  /** c3 is the prior's: nothing restored from host memory before convergence. */
  restoreFromPrior: boolean;
  /** What the engine measured after convergence (workload inputs and a drift check). */
  remeasured: WorkloadMeasures;
}

/** `SimResult.learning`: how the engine's iteration-time model was learned and how wrong it is. */
export interface LearningResult {
  /** 'online': learned during the run; 'given': an engine model was supplied and nothing was learned. */
  mode: 'online' | 'given';
  /** When the last node kind converged (simulated seconds from the start); null if some kind never did. */
  convergedAtSeconds: number | null;
  /**
   * Seconds of serving it took: from the first iteration the cluster ran to
   * convergedAtSeconds. Differs from it when the workload starts late (agents
   * that first set up an environment).
   */
  convergenceSeconds: number | null;
  /** When the nodes went back to their configured roles after serving both phases (s); null if they never served both. */
  collocatedUntilSeconds: number | null;
  /** Samples the converged fits used, summed over kinds and phases' fits. */
  samples: { prefill: number; decode: number };
  /**
   * Error against the noise-free truth, in percent, over every iteration run
   * after its phase's fit converged, all kinds pooled (see LearningScorer).
   */
  mape: MapeFigures;
  byKind: Record<string, KindLearningResult>;
}

export function givenLearningResult(): LearningResult {
  const none = { prefillSingle: null, prefillBatch: null, decode: null, mean: null };
  return { mode: 'given', convergedAtSeconds: null, convergenceSeconds: null, collocatedUntilSeconds: null, samples: { prefill: 0, decode: 0 }, mape: none, byKind: {} };
}

export function buildLearningResult(
  progress: readonly KindProgress[],
  scores: (kind: string) => ScoreTotals,
  truthOf: (kind: string) => EngineCoefficients | null,
  collocatedUntilSeconds: number | null,
): LearningResult {
  const byKind: Record<string, KindLearningResult> = {};
  const pooled: ScoreTotals = { prefillSingle: { sum: 0, count: 0 }, prefillBatch: { sum: 0, count: 0 }, decode: { sum: 0, count: 0 } };
  const samples = { prefill: 0, decode: 0 };
  let convergedAt: number | null = 0;
  let firstSample = Infinity;
  for (const p of progress) {
    const s = scores(p.kind);
    for (const key of ['prefillSingle', 'prefillBatch', 'decode'] as const) {
      pooled[key].sum += s[key].sum;
      pooled[key].count += s[key].count;
    }
    const kindSamples = { prefill: p.prefill.samples, decode: p.decode.samples };
    samples.prefill += kindSamples.prefill;
    samples.decode += kindSamples.decode;
    convergedAt = p.convergedAt === null || convergedAt === null ? null : Math.max(convergedAt, p.convergedAt);
    const first = Math.min(p.prefill.firstSampleAt ?? Infinity, p.decode.firstSampleAt ?? Infinity);
    firstSample = Math.min(firstSample, first);
    byKind[p.kind] = {
      convergedAtSeconds: p.convergedAt,
      convergenceSeconds: p.convergedAt !== null && Number.isFinite(first) ? p.convergedAt - first : null,
      phases: {
        prefill: { firstSampleAtSeconds: p.prefill.firstSampleAt, convergedAtSeconds: p.prefill.convergedAt },
        decode: { firstSampleAtSeconds: p.decode.firstSampleAt, convergedAtSeconds: p.decode.convergedAt },
      },
      samples: kindSamples,
      mape: mapeOf(s),
      scored: { prefillSingle: s.prefillSingle.count, prefillBatch: s.prefillBatch.count, decode: s.decode.count },
      prior: p.prior,
      fitted: p.fitted,
      current: p.current,
      truth: truthOf(p.kind),
      restoreFromPrior: p.restoreFromPrior,
      remeasured: p.remeasured,
    };
  }
  const converged = progress.length > 0 ? convergedAt : null;
  return {
    mode: 'online',
    convergedAtSeconds: converged,
    convergenceSeconds: converged !== null && Number.isFinite(firstSample) ? converged - firstSample : null,
    collocatedUntilSeconds,
    samples,
    mape: mapeOf(pooled),
    byKind,
  };
}

function mapeOf(t: ScoreTotals): MapeFigures {
  const pct = (slot: { sum: number; count: number }): number | null => (slot.count > 0 ? round2((100 * slot.sum) / slot.count) : null);
  const prefillSingle = pct(t.prefillSingle);
  const prefillBatch = pct(t.prefillBatch);
  const decode = pct(t.decode);
  const present = [prefillSingle, prefillBatch, decode].filter((v): v is number => v !== null);
  const mean = present.length > 0 ? round2(present.reduce((a, b) => a + b, 0) / present.length) : null;
  return { prefillSingle, prefillBatch, decode, mean };
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
