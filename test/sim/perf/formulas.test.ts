import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { sampleCtx, stdlib } from '../../../src/policy/index.js';
import { predictPrefill, prefillSampleOf } from '../../../src/sim/learning/index.js';
import {
  attentionPairs,
  CoefficientModel,
  decodeContextTime,
  decodeIterationTime,
  expertCoverage,
  ExpectedTruth,
  IterationTruth,
  prefillAloneTime,
  prefillIterationTime,
  timePerOutputToken,
  type TruthSpec,
} from '../../../src/sim/perf/index.js';

const prefill = { c0: 0.01, c1: 1e-3, c2: 1e-6, c3: 1e-4 };
const decode = { d0: 0.005, d1: 0.01, d2: 0.001 };
const shape = { routedExperts: 2, expertsPerToken: 1, tokensFed: 1 };
const spec: TruthSpec = { prefill, decode, decodeContext: { perToken: 1e-7 }, shape, noiseCv: 0.025 };

describe('prefill formula', () => {
  it('counts query-key pairs of causal attention over new tokens', () => {
    expect(attentionPairs(3, 10)).toBe(3 * 10 + 6); // 30 cached pairs + 1+2+3 new
    expect(attentionPairs(1, 0)).toBe(1);
    expect(attentionPairs(0, 1000)).toBe(0);
  });

  it('sums the batch by hand', () => {
    const batch = [
      { uncachedTokens: 3, cachedTokens: 10, restoredTokens: 5 },
      { uncachedTokens: 2, cachedTokens: 0, restoredTokens: 0 },
    ];
    // 0.01 + 1e-3*5 + 1e-6*(36+3) + 1e-4*5
    expect(prefillIterationTime(prefill, batch)).toBeCloseTo(0.015539, 12);
    expect(prefillIterationTime(prefill, [])).toBe(0);
  });

  it('is one formula: the fitter predicts with it, and the policy stdlib (sandbox source text) computes exactly the same time', () => {
    // The stdlib's prefillRate is evaluated from JS source in the sandbox and
    // cannot import this module: this pins it to prefillIterationTime, bit for bit.
    const rng = new Rng(13);
    const ctx = sampleCtx({ nodes: 2, prefillNodes: 1 });
    for (let i = 0; i < 200; i++) {
      const c = { c0: rng.uniform(0, 0.05), c1: rng.uniform(0, 1e-4), c2: rng.uniform(0, 1e-8), c3: rng.uniform(0, 1e-5) };
      const work = { uncachedTokens: rng.uniform(1, 40_000), cachedTokens: rng.uniform(0, 200_000), restoredTokens: rng.uniform(0, 50_000) };
      const host = prefillIterationTime(c, [work]);
      const m = ctx.model.byKind.gb300!;
      const withC = { ...ctx, model: { byKind: { gb300: { ...m, prefill: c } } } };
      const w = { uncached: work.uncachedTokens, cached: work.cachedTokens, output: 100, accepted: null, restored: work.restoredTokens, decodeQueue: 10 };
      expect(stdlib.phaseCapacity(withC, ['P', 'D'], w).prefill).toBe(1 / host);
      expect(predictPrefill(c, prefillSampleOf(0, [work], host))).toBe(host);
    }
  });

  it('prefills a long prompt alone in chunks that cost only extra c0', () => {
    const model = new CoefficientModel(prefill, decode, shape);
    const work = { uncachedTokens: 5, cachedTokens: 7, restoredTokens: 4 };
    const whole = model.prefillTime([work]);
    expect(prefillAloneTime(model, work)).toBe(whole);
    // chunks of 2, 2, 1: same pairs, three fixed costs
    expect(prefillAloneTime(model, work, 2)).toBeCloseTo(whole + 2 * prefill.c0, 12);
    expect(() => prefillAloneTime(model, work, 0)).toThrow(RangeError);
  });
});

describe('decode formula', () => {
  it('phi(B) by hand and at its limits', () => {
    expect(expertCoverage(0, shape)).toBe(0);
    expect(expertCoverage(1, shape)).toBeCloseTo(0.5, 15);
    expect(expertCoverage(2, shape)).toBeCloseTo(0.75, 15);
    const glm = { routedExperts: 256, expertsPerToken: 8, tokensFed: 4 };
    expect(expertCoverage(1, glm)).toBeCloseTo(1 - (31 / 32) ** 4, 15);
    expect(expertCoverage(10_000, glm)).toBe(1);
    // all experts on every token: any token reads everything
    expect(expertCoverage(1, { routedExperts: 8, expertsPerToken: 8, tokensFed: 1 })).toBe(1);
    // few tokens: phi ~ t_fwd * B * k / E
    const sparse = { routedExperts: 10_000, expertsPerToken: 1, tokensFed: 2 };
    expect(expertCoverage(1, sparse)).toBeCloseTo(2e-4, 7);
    // increasing in B, below 1
    let prev = 0;
    for (let b = 1; b <= 64; b++) {
      const phi = expertCoverage(b, glm);
      expect(phi).toBeGreaterThan(prev);
      expect(phi).toBeLessThanOrEqual(1);
      prev = phi;
    }
  });

  it('T_D(B) by hand', () => {
    // 0.005 + 0.01 * 0.75 + 0.001 * 2
    expect(decodeIterationTime(decode, shape, 2)).toBeCloseTo(0.0145, 15);
    expect(decodeIterationTime(decode, shape, 0)).toBe(0);
    expect(decodeContextTime({ perToken: 1e-7 }, 2, 1000)).toBeCloseTo(2e-4, 15);
    expect(timePerOutputToken(0.03, 3)).toBeCloseTo(0.01, 15);
  });

  it('the coefficient model ignores context, the expected truth adds its term', () => {
    const model = new CoefficientModel(prefill, decode, shape);
    expect(model.decodeTime(2, 1e6)).toBe(model.decodeTime(2, 0));
    const truth = new ExpectedTruth(spec);
    expect(truth.decodeTime(2, 1000)).toBeCloseTo(0.0145 + 2e-4, 15);
    expect(truth.prefillTime([{ uncachedTokens: 2, cachedTokens: 0, restoredTokens: 0 }])).toBe(
      model.prefillTime([{ uncachedTokens: 2, cachedTokens: 0, restoredTokens: 0 }]),
    );
  });
});

describe('iteration truth', () => {
  it('is the expected truth times lognormal noise of mean 1 and the given cv', () => {
    const truth = new IterationTruth(spec, new Rng(7));
    const expected = truth.expected.decodeTime(4, 5000);
    const n = 20_000;
    let sum = 0;
    let sq = 0;
    for (let i = 0; i < n; i++) {
      const r = truth.decodeTime(4, 5000) / expected;
      sum += r;
      sq += r * r;
    }
    const mean = sum / n;
    const cv = Math.sqrt(sq / n - mean * mean) / mean;
    expect(mean).toBeCloseTo(1, 2);
    expect(cv).toBeGreaterThan(0.022);
    expect(cv).toBeLessThan(0.028);
  });

  it('is reproducible from the seed, and empty batches draw nothing', () => {
    const a = new IterationTruth(spec, new Rng(3));
    const b = new IterationTruth(spec, new Rng(3));
    expect(a.prefillTime([])).toBe(0);
    expect(a.decodeTime(0, 0)).toBe(0);
    const work = [{ uncachedTokens: 100, cachedTokens: 50, restoredTokens: 0 }];
    expect(a.prefillTime(work)).toBe(b.prefillTime(work));
    expect(a.decodeTime(3, 10)).toBe(b.decodeTime(3, 10));
  });

  it('without noise equals the expected truth', () => {
    const truth = new IterationTruth({ ...spec, noiseCv: 0 }, new Rng(1));
    expect(truth.decodeTime(5, 100)).toBe(truth.expected.decodeTime(5, 100));
  });
});
