import { describe, expect, it } from 'vitest';
import { buildLearningResult, LearningScorer, type KindProgress } from '../../../src/sim/learning/index.js';

function progress(kind: string, convergedAt: number | null, firstSampleAt: number): KindProgress {
  const coeffs = { prefill: { c0: 1, c1: 1, c2: 1, c3: 1 }, decode: { d0: 1, d1: 1, d2: 1 } };
  const phase = { firstSampleAt, convergedAt, samples: convergedAt === null ? 0 : 100, recorded: 100 };
  return {
    kind,
    convergedAt,
    prefill: phase,
    decode: phase,
    prior: coeffs,
    current: coeffs,
    fitted: convergedAt === null ? { prefill: null, decode: null } : coeffs,
    restoreFromPrior: false,
    remeasured: { prefillIterations: 0, meanUncachedTokens: 0, meanPrefillBatch: 0, restoredShare: 0, decodeEpochs: 0, meanDecodeBatch: 0, measuredOverPredicted: { prefill: 0, decode: 0 } },
  };
}

describe('learning result', () => {
  const truth = { prefillTime: () => 1, decodeTime: () => 2 };

  it('scores |predicted - truth| / truth per category, pools kinds, and averages the categories unweighted, in percent', () => {
    const scorer = new LearningScorer();
    const one = [{ uncachedTokens: 1, cachedTokens: 0, restoredTokens: 0 }];
    scorer.prefill('a', truth, one, 1.1); // 10%
    scorer.prefill('a', truth, one, 0.9); // 10%
    scorer.prefill('b', truth, [...one, ...one], 1.3); // batch 30%
    for (let i = 0; i < 10; i++) scorer.decode('b', truth, 8, 0, 2.02); // 1%
    const r = buildLearningResult([progress('a', 30, 0.5), progress('b', 40, 2)], (k) => scorer.totalsOf(k), () => null, 40);
    expect(r.mape).toEqual({ prefillSingle: 10, prefillBatch: 30, decode: 1, mean: 13.67 });
    expect(r.byKind.a!.mape).toEqual({ prefillSingle: 10, prefillBatch: null, decode: null, mean: 10 });
    expect(r.byKind.b!.scored).toEqual({ prefillSingle: 0, prefillBatch: 1, decode: 10 });
    expect(r.convergedAtSeconds).toBe(40);
    expect(r.convergenceSeconds).toBe(39.5);
    expect(r.byKind.b!.convergenceSeconds).toBe(38);
    expect(r.samples).toEqual({ prefill: 200, decode: 200 });
    expect(r.collocatedUntilSeconds).toBe(40);
  });

  it('a kind that never converged leaves the run unconverged', () => {
    const r = buildLearningResult([progress('a', 30, 0), progress('b', null, 0)], () => new LearningScorer().totalsOf('x'), () => null, 120);
    expect(r.convergedAtSeconds).toBeNull();
    expect(r.convergenceSeconds).toBeNull();
    expect(r.mape.mean).toBeNull();
    expect(r.byKind.b!.samples).toEqual({ prefill: 0, decode: 0 });
  });
});
