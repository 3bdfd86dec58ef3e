import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import {
  IterationFitter,
  isDecodeSample,
  predictDecode,
  predictPrefill,
  prefillSampleOf,
  reciprocalCondition,
  type DecodeSample,
  type PrefillSample,
} from '../../../src/sim/learning/index.js';
import { IterationTruth, type PrefillWork, type TruthSpec } from '../../../src/sim/perf/index.js';
import { coefficientsFor, loadModel, loadNodeKind } from '../../../src/sim/profiles/index.js';

const spec: TruthSpec = coefficientsFor(loadModel('glm-5.2'), loadNodeKind('gb300'));
const expertRatio = spec.shape.expertsPerToken / spec.shape.routedExperts;
const MAX_BATCH_TOKENS = 16_384;

function logUniformInt(rng: Rng, lo: number, hi: number): number {
  return Math.round(Math.exp(rng.uniform(Math.log(lo), Math.log(hi))));
}

function randomWork(rng: Rng, maxUncached: number): PrefillWork {
  const uncachedTokens = Math.min(maxUncached, logUniformInt(rng, 100, 16_000));
  const cachedTokens = rng.chance(0.3) ? 0 : rng.int(0, 150_000);
  const restoredTokens = cachedTokens > 0 && rng.chance(0.4) ? rng.int(0, cachedTokens) : 0;
  return { uncachedTokens, cachedTokens, restoredTokens };
}

/**
 * A stream of measured iterations: half single-request prefills, half batches
 * of 2-8 requests within the 16K-token batch limit; decode batches of 1..128
 * (log-uniform) with mean contexts of 0..150K. Measured times come from the
 * noisy IterationTruth; the noise-free truth of each sample is kept for the
 * error check.
 */
class Stream {
  readonly truthOf = new Map<PrefillSample | DecodeSample, number>();
  private readonly noisy: IterationTruth;
  private at = 0;

  constructor(
    private readonly rng: Rng,
    noiseRng: Rng,
  ) {
    this.noisy = new IterationTruth(spec, noiseRng);
  }

  prefill(): PrefillSample {
    const batch: PrefillWork[] = [];
    if (this.rng.chance(0.5)) {
      batch.push(randomWork(this.rng, MAX_BATCH_TOKENS));
    } else {
      const n = this.rng.int(2, 8);
      let budget = MAX_BATCH_TOKENS;
      for (let i = 0; i < n && budget >= 100; i++) {
        const w = randomWork(this.rng, Math.floor(budget / 2) || budget);
        batch.push(w);
        budget -= w.uncachedTokens;
      }
    }
    const seconds = this.noisy.prefillTime(batch);
    const sample = prefillSampleOf(this.tick(seconds), batch, seconds);
    this.truthOf.set(sample, this.noisy.expected.prefillTime(batch));
    return sample;
  }

  decode(): DecodeSample {
    const batchSize = logUniformInt(this.rng, 1, 128);
    const meanContextTokens = this.rng.uniform(0, 150_000);
    const seconds = this.noisy.decodeTime(batchSize, meanContextTokens);
    const sample: DecodeSample = {
      at: this.tick(seconds),
      batchSize,
      tokensFed: spec.shape.tokensFed,
      expertRatio,
      seconds,
      meanContextTokens,
    };
    this.truthOf.set(sample, this.noisy.expected.decodeTime(batchSize, meanContextTokens));
    return sample;
  }

  truth = (s: PrefillSample | DecodeSample): number => {
    const t = this.truthOf.get(s);
    if (t === undefined) throw new Error('unknown sample');
    return t;
  };

  private tick(seconds: number): number {
    this.at += seconds;
    return this.at;
  }
}

function feed(fitter: IterationFitter, stream: Stream, n: number): void {
  for (let i = 0; i < n; i++) {
    fitter.addPrefill(stream.prefill());
    fitter.addDecode(stream.decode());
  }
}

function heldOut(seed: number, n: number): { stream: Stream; prefill: PrefillSample[]; decode: DecodeSample[] } {
  const stream = new Stream(new Rng(seed), new Rng(seed + 1));
  const prefill = Array.from({ length: n }, () => stream.prefill());
  const decode = Array.from({ length: n }, () => stream.decode());
  return { stream, prefill, decode };
}

describe('IterationFitter on glm-5.2 / gb300 (noisy truth)', () => {
  const windowed = { windowSeconds: 600, windows: 10 };

  it('fits coefficients with prediction MAPE under 7% from a few hundred samples', () => {
    const test = heldOut(1000, 2000);
    for (const seed of [1, 2, 3, 4, 5]) {
      const fitter = new IterationFitter(windowed);
      const stream = new Stream(Rng.derive(seed, 'workload'), Rng.derive(seed, 'noise'));
      feed(fitter, stream, 300);
      const fit = fitter.fit();
      expect(fit).not.toBeNull();
      expect(fit!.converged).toBe(true);
      expect(fit!.prefillSamples).toBe(300);
      const err = fitter.error(test.stream.truth, test)!;
      expect(err.counts.singlePrefill + err.counts.batchedPrefill).toBe(2000);
      expect(err.singlePrefill!).toBeLessThan(0.07);
      expect(err.batchedPrefill!).toBeLessThan(0.07);
      expect(err.decode!).toBeLessThan(0.07);
      // Observed (seeds 1-5): prefill 0.04-0.4%, decode 1.2-1.3% (the context
      // term the engine's model lacks); tighter bounds catch regressions.
      expect(err.singlePrefill!).toBeLessThan(0.01);
      expect(err.batchedPrefill!).toBeLessThan(0.01);
      expect(err.decode!).toBeLessThan(0.025);
      // In-sample error against the noise-free truth, too.
      const own = fitter.error(stream.truth)!;
      expect(own.singlePrefill!).toBeLessThan(0.07);
      expect(own.batchedPrefill!).toBeLessThan(0.07);
      expect(own.decode!).toBeLessThan(0.07);
      // The prefill terms are identified (the prefill truth has no hidden term).
      expect(Math.abs(fit!.prefill.c0 / spec.prefill.c0 - 1)).toBeLessThan(0.03);
      expect(Math.abs(fit!.prefill.c1 / spec.prefill.c1 - 1)).toBeLessThan(0.03);
      expect(Math.abs(fit!.prefill.c2 / spec.prefill.c2 - 1)).toBeLessThan(0.03);
      expect(Math.abs(fit!.prefill.c3 / spec.prefill.c3 - 1)).toBeLessThan(0.2);
      // Decode absorbs the context term, mostly into the per-request term.
      expect(Math.abs(fit!.decode.d0 / spec.decode.d0 - 1)).toBeLessThan(0.1);
      expect(Math.abs(fit!.decode.d1 / spec.decode.d1 - 1)).toBeLessThan(0.1);
      expect(fit!.decode.d2).toBeGreaterThan(spec.decode.d2);
    }
  });

  it('converges: error shrinks from a few dozen to a few hundred samples', () => {
    const test = heldOut(2000, 1000);
    const mean = (e: { singlePrefill: number | null; batchedPrefill: number | null; decode: number | null }): number =>
      (e.singlePrefill! + e.batchedPrefill! + e.decode!) / 3;
    let small = 0;
    let large = 0;
    const seeds = [11, 12, 13, 14, 15, 16];
    for (const seed of seeds) {
      const fitter = new IterationFitter({ ...windowed, minSamples: 24 });
      const stream = new Stream(Rng.derive(seed, 'workload'), Rng.derive(seed, 'noise'));
      feed(fitter, stream, 30);
      const early = fitter.error(test.stream.truth, test);
      expect(early).not.toBeNull();
      small += mean(early!);
      feed(fitter, stream, 370);
      large += mean(fitter.error(test.stream.truth, test)!);
    }
    expect(large / seeds.length).toBeLessThan(small / seeds.length);
    expect(large / seeds.length).toBeLessThan(0.05);
  });

  it('recovers the truth exactly from noise-free prefill samples', () => {
    const rng = new Rng(5);
    const fitter = new IterationFitter();
    for (let i = 0; i < 50; i++) {
      const batch = [randomWork(rng, MAX_BATCH_TOKENS)];
      fitter.addPrefill(prefillSampleOf(i, batch, predictPrefill(spec.prefill, prefillSampleOf(i, batch, 1))));
      const s = { batchSize: rng.int(1, 128), tokensFed: spec.shape.tokensFed, expertRatio };
      fitter.addDecode({ at: i, ...s, seconds: predictDecode(spec.decode, s) });
    }
    const fit = fitter.fit()!;
    for (const k of ['c0', 'c1', 'c2', 'c3'] as const) expect(fit.prefill[k] / spec.prefill[k]).toBeCloseTo(1, 8);
    for (const k of ['d0', 'd1', 'd2'] as const) expect(fit.decode[k] / spec.decode[k]).toBeCloseTo(1, 8);
  });
});

describe('IterationFitter bookkeeping', () => {
  function sampleSet(at: number, i: number): { p: PrefillSample; d: DecodeSample } {
    const tuc = 200 + 500 * (i % 20);
    const p = prefillSampleOf(at, [{ uncachedTokens: tuc, cachedTokens: 1000 * (i % 7), restoredTokens: 0 }], 0);
    p.seconds = predictPrefill(spec.prefill, p);
    const s = { batchSize: 1 + (i % 40), tokensFed: spec.shape.tokensFed, expertRatio };
    return { p, d: { at, ...s, seconds: predictDecode(spec.decode, s) } };
  }

  it('is null until there are enough samples', () => {
    const fitter = new IterationFitter({ minSamples: 24 });
    for (let i = 0; i < 23; i++) {
      const { p, d } = sampleSet(i, i);
      fitter.addPrefill(p);
      fitter.addDecode(d);
    }
    expect(fitter.fit()).toBeNull();
    expect(fitter.error(() => 1)).toBeNull();
    const { p, d } = sampleSet(23, 23);
    fitter.addPrefill(p);
    fitter.addDecode(d);
    expect(fitter.fit()).not.toBeNull();
  });

  it('is null without variety: one prompt length, or only large decode batches (phi saturated)', () => {
    const same = new IterationFitter();
    const wide = new IterationFitter();
    for (let i = 0; i < 100; i++) {
      const { p, d } = sampleSet(i, i);
      const fixed = { ...p, uncachedTokens: 4000, attentionPairs: 4000 * 4001 / 2 };
      same.addPrefill(fixed);
      same.addDecode(d);
      wide.addPrefill(p);
      const big = { batchSize: 64 + (i % 64), tokensFed: spec.shape.tokensFed, expertRatio };
      wide.addDecode({ at: i, ...big, seconds: predictDecode(spec.decode, big) });
    }
    expect(same.fit()).toBeNull();
    expect(wide.fit()).toBeNull();
  });

  it('fits on the most recent windows only, so it follows a change of the truth', () => {
    const fitter = new IterationFitter({ windowSeconds: 10, windows: 3 });
    const slow = { ...spec.prefill, c1: spec.prefill.c1 * 2 };
    for (let i = 0; i < 200; i++) {
      const at = i * 0.25; // 0..50 s
      const { p, d } = sampleSet(at, i);
      if (at >= 25) p.seconds = predictPrefill(slow, p);
      fitter.addPrefill(p);
      fitter.addDecode(d);
    }
    // Windows 2..4 (20..50 s) are retained; a mixed fit would not give c1 near 2x.
    expect(fitter.prefillSamples().every((s) => s.at >= 20)).toBe(true);
    for (let i = 200; i < 280; i++) {
      const at = i * 0.25; // up to 70 s: windows 4..6, all slow
      const { p, d } = sampleSet(at, i);
      p.seconds = predictPrefill(slow, p);
      fitter.addPrefill(p);
      fitter.addDecode(d);
    }
    const fit = fitter.fit()!;
    expect(fit.prefill.c1 / slow.c1).toBeCloseTo(1, 6);
    // A late sample for an expired window is dropped.
    const before = fitter.dropped;
    fitter.addPrefill(sampleSet(1, 1).p);
    expect(fitter.dropped).toBe(before + 1);
  });

  it('caps samples per window', () => {
    const fitter = new IterationFitter({ maxSamplesPerWindow: 5 });
    for (let i = 0; i < 8; i++) fitter.addPrefill(sampleSet(1, i).p);
    expect(fitter.prefillSamples()).toHaveLength(5);
    expect(fitter.dropped).toBe(3);
  });

  it('splits the error into single-request prefill, batched prefill and decode', () => {
    const fitter = new IterationFitter();
    for (let i = 0; i < 60; i++) {
      const { p, d } = sampleSet(i, i);
      fitter.addPrefill(p);
      fitter.addDecode(d);
    }
    const batched = prefillSampleOf(0, [
      { uncachedTokens: 1000, cachedTokens: 0, restoredTokens: 0 },
      { uncachedTokens: 2000, cachedTokens: 5000, restoredTokens: 0 },
    ], 1);
    const single = prefillSampleOf(0, [{ uncachedTokens: 1000, cachedTokens: 0, restoredTokens: 0 }], 1);
    const dec: DecodeSample = { at: 0, batchSize: 10, tokensFed: spec.shape.tokensFed, expertRatio, seconds: 1 };
    // Truth 10% above (batched), 20% below (single) and 50% above (decode) the exact model.
    const err = fitter.error(
      (s) => {
        if (isDecodeSample(s)) return predictDecode(spec.decode, s) * 1.5;
        return predictPrefill(spec.prefill, s) * (s.requests > 1 ? 1.1 : 0.8);
      },
      { prefill: [batched, single], decode: [dec] },
    )!;
    expect(err.batchedPrefill!).toBeCloseTo(0.1 / 1.1, 6);
    expect(err.singlePrefill!).toBeCloseTo(0.2 / 0.8, 6);
    expect(err.decode!).toBeCloseTo(0.5 / 1.5, 6);
    expect(err.counts).toEqual({ singlePrefill: 1, batchedPrefill: 1, decode: 1 });
  });

  it('rejects malformed samples', () => {
    const fitter = new IterationFitter();
    const { p, d } = sampleSet(0, 0);
    expect(() => fitter.addPrefill({ ...p, seconds: 0 })).toThrow(RangeError);
    expect(() => fitter.addPrefill({ ...p, requests: 0 })).toThrow(RangeError);
    expect(() => fitter.addDecode({ ...d, expertRatio: 1.5 })).toThrow(RangeError);
    expect(() => fitter.addDecode({ ...d, batchSize: NaN })).toThrow(RangeError);
  });
});

describe('reciprocalCondition', () => {
  it('is 1 for orthogonal columns, 0 for dependent ones, in between otherwise', () => {
    expect(reciprocalCondition([[1, 0], [0, 1], [0, 0]], [0, 1])).toBeCloseTo(1, 12);
    expect(reciprocalCondition([[1, 2], [2, 4], [3, 6]], [0, 1])).toBeLessThan(1e-7);
    // Unit columns at 60 degrees: Gram eigenvalues 1.5 and 0.5.
    const r = reciprocalCondition([[1, 0.5], [0, Math.sqrt(3) / 2]], [0, 1]);
    expect(r).toBeCloseTo(Math.sqrt(0.5 / 1.5), 10);
  });
});

describe('IterationFitter phase fits, prior and bounds', () => {
  // Full chunks of long prompts: a fixed cost of a few percent of each iteration, which the noise hides.
  const chunks = (rng: Rng): PrefillWork => ({ uncachedTokens: rng.int(12_000, MAX_BATCH_TOKENS), cachedTokens: rng.int(0, 150_000), restoredTokens: 0 });
  function feedPrefill(fitter: IterationFitter, make: (rng: Rng) => PrefillWork, n: number, seed: number, s: TruthSpec = spec): void {
    const rng = new Rng(seed);
    const truth = new IterationTruth(s, new Rng(seed + 1));
    for (let i = 0; i < n; i++) {
      const batch = [make(rng)];
      fitter.addPrefill(prefillSampleOf(i * 0.1, batch, truth.prefillTime(batch)));
    }
  }

  it('fits each phase on its own: prefill without any decode sample', () => {
    const fitter = new IterationFitter();
    feedPrefill(fitter, (rng) => randomWork(rng, MAX_BATCH_TOKENS), 100, 1);
    expect(fitter.fitPrefill()).not.toBeNull();
    expect(fitter.fitDecode()).toBeNull();
    expect(fitter.fit()).toBeNull();
    expect(fitter.fitPrefill()!.covariance).not.toBeNull();
  });

  it('a prior keeps a term the data cannot see near it, and hardly moves the terms the data pins down', () => {
    const prior = { prefill: { c0: spec.prefill.c0 * 2, c1: spec.prefill.c1 * 2, c2: spec.prefill.c2 * 2, c3: spec.prefill.c3 * 2 }, decode: spec.decode, relativeSd: 1 };
    const plain = new IterationFitter();
    const map = new IterationFitter({ prior });
    feedPrefill(plain, chunks, 40, 2);
    feedPrefill(map, chunks, 40, 2);
    const p = plain.fitPrefill()!;
    const m = map.fitPrefill()!;
    // c0 is poorly known from these: its standard error is a large share of it.
    const plainSe = Math.sqrt(p.covariance![0]![0]!);
    expect(plainSe).toBeGreaterThan(spec.prefill.c0 * 0.3);
    // With the prior it stays within reach of prior and truth, and is known better.
    expect(m.coefficients.c0).toBeGreaterThan(spec.prefill.c0 * 0.5);
    expect(m.coefficients.c0).toBeLessThan(prior.prefill.c0 * 1.5);
    expect(Math.sqrt(m.covariance![0]![0]!)).toBeLessThan(plainSe);
    // c1 and c2 are pinned down by the data: the prior's pull (2x off) moves them by under 2%.
    expect(Math.abs(m.coefficients.c1 / p.coefficients.c1 - 1)).toBeLessThan(0.02);
    expect(Math.abs(m.coefficients.c2 / p.coefficients.c2 - 1)).toBeLessThan(0.02);
    // With varied work the prior does not matter.
    const plain2 = new IterationFitter();
    const map2 = new IterationFitter({ prior });
    feedPrefill(plain2, (rng) => randomWork(rng, MAX_BATCH_TOKENS), 300, 3);
    feedPrefill(map2, (rng) => randomWork(rng, MAX_BATCH_TOKENS), 300, 3);
    for (const c of ['c0', 'c1', 'c2'] as const) {
      expect(Math.abs(map2.fitPrefill()!.coefficients[c] / plain2.fitPrefill()!.coefficients[c] - 1), c).toBeLessThan(0.01);
    }
  });

  it('holds a coefficient at its upper bound and refits the others; a bound held is not counted as known', () => {
    const costly: TruthSpec = { ...spec, prefill: { ...spec.prefill, c3: spec.prefill.c3 * 10 } };
    const bound = spec.prefill.c3 * 2;
    const free = new IterationFitter();
    const capped = new IterationFitter({ upperBounds: { prefill: { c3: bound } } });
    feedPrefill(free, (rng) => randomWork(rng, MAX_BATCH_TOKENS), 300, 4, costly);
    feedPrefill(capped, (rng) => randomWork(rng, MAX_BATCH_TOKENS), 300, 4, costly);
    expect(free.fitPrefill()!.coefficients.c3).toBeGreaterThan(bound);
    const c = capped.fitPrefill()!;
    expect(c.coefficients.c3).toBe(bound);
    expect(c.covariance![3]![3]!).toBeGreaterThan(0);
    // The other terms are refitted (not just the clipped solution of the free fit).
    expect(c.coefficients.c0).not.toBe(free.fitPrefill()!.coefficients.c0);
  });

  it('rejects a prior without spread', () => {
    expect(() => new IterationFitter({ prior: { prefill: spec.prefill, decode: spec.decode, relativeSd: 0 } })).toThrow(RangeError);
  });
});
