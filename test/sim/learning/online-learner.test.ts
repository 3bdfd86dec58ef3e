import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import {
  GENERIC_PRIOR,
  LearnedIterationModel,
  OnlineLearner,
  priorCoefficients,
  type EngineCoefficients,
  type KindSetup,
} from '../../../src/sim/learning/index.js';
import { IterationTruth, type PrefillWork, type TruthSpec } from '../../../src/sim/perf/index.js';
import { coefficientsFor, loadModel, loadNodeKind } from '../../../src/sim/profiles/index.js';

const glm = loadModel('glm-5.2');
const gb300 = loadNodeKind('gb300');
const spec: TruthSpec = coefficientsFor(glm, gb300);
const MAX_TOKENS = gb300.batch.maxPrefillTokens;

function setupOf(kind: string, s: TruthSpec, maxDecodeBatch = gb300.batch.maxDecodeRequests): KindSetup {
  const prior = priorCoefficients({
    kvBytesPerToken: glm.shape.kvBytesPerToken,
    hostToGpuBandwidth: gb300.transfer.hostToGpuBandwidth,
    prefillComputeSpeed: 1,
    decodeMemorySpeed: 1,
  });
  return { kind, shape: s.shape, prior, maxDecodeBatch };
}

/**
 * What a serving engine of one kind measures, second by second: prefill
 * iterations of the given work and decode epochs of batch sizes 1..maxBatch,
 * timed by the noisy truth.
 */
class Feed {
  private readonly truth: IterationTruth;
  constructor(
    s: TruthSpec,
    private readonly rng: Rng,
    private readonly work: (rng: Rng) => PrefillWork,
    private readonly maxBatch = 40,
  ) {
    this.truth = new IterationTruth(s, Rng.derive(rng.nextUint32(), 'noise'));
  }

  /** Feed `perSecond` prefill iterations and decode epochs per second from `from` to `to` (s). */
  run(learner: OnlineLearner, kind: string, from: number, to: number, perSecond = 8): void {
    for (let t = from; t < to; t += 1 / perSecond) {
      const batch = [this.work(this.rng)];
      learner.recordPrefill(kind, t, batch, this.truth.prefillTime(batch));
      const b = this.rng.int(1, this.maxBatch);
      learner.recordDecode(kind, t, b, this.truth.decodeTime(b, this.rng.uniform(0, 100_000)));
    }
  }
}

/** Serving-like prefill work: chunks and appends of 200 to 16K new tokens on 0 to 150K cached, a third partly restored. */
function servingWork(rng: Rng): PrefillWork {
  const uncachedTokens = Math.round(Math.exp(rng.uniform(Math.log(200), Math.log(MAX_TOKENS))));
  const cachedTokens = rng.chance(0.2) ? 0 : rng.int(0, 150_000);
  const restoredTokens = rng.chance(0.33) ? rng.int(0, cachedTokens) : 0;
  return { uncachedTokens, cachedTokens, restoredTokens };
}

/** Only long cold prompts (the first seconds of a cold start without chunking): nothing pins down the fixed cost. */
function coldPrompts(rng: Rng): PrefillWork {
  return { uncachedTokens: rng.int(60_000, 90_000), cachedTokens: 16_000, restoredTokens: 0 };
}

function relErr(a: number, b: number): number {
  return Math.abs(a / b - 1);
}

describe('OnlineLearner', () => {
  it('converges at the end of the second window with a fit, swaps the fit into the engine model and then only measures', () => {
    const learner = new OnlineLearner([setupOf('gb300', spec)]);
    const feed = new Feed(spec, new Rng(1), servingWork);
    const model = learner.model('gb300');
    expect(model.current()).toEqual(setupOf('gb300', spec).prior);
    feed.run(learner, 'gb300', 0, 10);
    expect(learner.closeWindow(10)).toEqual([]); // the first fit has nothing to agree with
    expect(model.source).toEqual({ prefill: 'prior', decode: 'prior' });
    feed.run(learner, 'gb300', 10, 20);
    expect(learner.closeWindow(20)).toEqual(['gb300']);
    expect(learner.converged('gb300')).toBe(true);
    expect(model.source).toEqual({ prefill: 'fitted', decode: 'fitted' });
    const [p] = learner.progress();
    expect(p!.convergedAt).toBe(20);
    expect(p!.prefill.samples).toBe(160);
    expect(p!.prefill.firstSampleAt).toBe(0);
    expect(model.current()).toEqual({ prefill: p!.fitted.prefill, decode: p!.fitted.decode });
    for (const c of ['c0', 'c1', 'c2'] as const) expect(relErr(p!.fitted.prefill![c], spec.prefill[c]), c).toBeLessThan(0.05);
    expect(relErr(p!.fitted.decode!.d0, spec.decode.d0)).toBeLessThan(0.05);
    // The checks record why: a first fit, then agreement and precision.
    const checks = learner.checks.filter((c) => c.phase === 'prefill');
    expect(checks.map((c) => [c.at, c.converged])).toEqual([
      [10, false],
      [20, true],
    ]);
    expect(checks[1]!.shift!).toBeLessThanOrEqual(0.03);
    expect(checks[1]!.error!).toBeLessThanOrEqual(0.03);
    // After convergence an iteration is not a sample any more: its prediction comes back, the workload is measured.
    const work = [{ uncachedTokens: 3000, cachedTokens: 90_000, restoredTokens: 20_000 }];
    expect(learner.recordPrefill('gb300', 21, work, 0.5)).toBe(model.prefillTime(work));
    expect(learner.recordDecode('gb300', 21, 16, 0.03)).toBe(model.decodeTime(16, 0));
    const after = learner.progress()[0]!;
    expect(after.prefill.recorded).toBe(p!.prefill.recorded);
    expect(after.remeasured.prefillIterations).toBe(1);
    expect(after.remeasured.restoredShare).toBeCloseTo(20_000 / 90_000, 12);
    expect(after.remeasured.meanDecodeBatch).toBe(16);
  });

  it('does not converge on work that leaves common work unpriced: only long cold prompts say nothing of the fixed cost', () => {
    const learner = new OnlineLearner([setupOf('gb300', spec)]);
    const feed = new Feed(spec, new Rng(2), coldPrompts);
    for (let w = 1; w <= 6; w++) {
      feed.run(learner, 'gb300', (w - 1) * 10, w * 10);
      learner.closeWindow(w * 10);
    }
    const [p] = learner.progress();
    expect(p!.prefill.convergedAt).toBeNull();
    expect(learner.model('gb300').source.prefill).toBe('prior');
    // It had fits; their error on a 1K-token prompt was too large.
    const last = learner.checks.filter((c) => c.phase === 'prefill').at(-1)!;
    expect(last.error!).toBeGreaterThan(0.03);
    // Decode is fitted on its own meanwhile.
    expect(p!.decode.convergedAt).not.toBeNull();
  });

  it('needs a range of decode batch sizes: batches of 1 to 3 never converge', () => {
    const learner = new OnlineLearner([setupOf('gb300', spec)]);
    const feed = new Feed(spec, new Rng(3), servingWork, 3);
    for (let w = 1; w <= 6; w++) {
      feed.run(learner, 'gb300', (w - 1) * 10, w * 10);
      learner.closeWindow(w * 10);
    }
    const [p] = learner.progress();
    expect(p!.prefill.convergedAt).toBe(20);
    expect(p!.decode.convergedAt).toBeNull();
    expect(p!.convergedAt).toBeNull();
    expect(learner.allConverged).toBe(false);
  });

  it('keeps one fit per node kind', () => {
    const h200 = loadNodeKind('h200');
    const slow = coefficientsFor(glm, h200);
    const learner = new OnlineLearner([setupOf('gb300', spec), setupOf('h200', slow)]);
    const a = new Feed(spec, new Rng(4), servingWork);
    const b = new Feed(slow, new Rng(5), servingWork);
    for (const w of [1, 2]) {
      a.run(learner, 'gb300', (w - 1) * 10, w * 10);
      b.run(learner, 'h200', (w - 1) * 10, w * 10);
      learner.closeWindow(w * 10);
    }
    expect(learner.allConverged).toBe(true);
    const [g, h] = learner.progress();
    expect(relErr(g!.fitted.prefill!.c1, spec.prefill.c1)).toBeLessThan(0.05);
    expect(relErr(h!.fitted.prefill!.c1, slow.prefill.c1)).toBeLessThan(0.05);
    expect(relErr(h!.fitted.decode!.d1, slow.decode.d1)).toBeLessThan(0.1);
    expect(() => learner.recordPrefill('gb200', 0, [], 1)).toThrow(RangeError);
  });

  it('restore cost: from the prior when nothing was restored, never above the link bound', () => {
    const noRestore = (rng: Rng): PrefillWork => ({ ...servingWork(rng), restoredTokens: 0 });
    const learner = new OnlineLearner([setupOf('gb300', spec)]);
    const feed = new Feed(spec, new Rng(6), noRestore);
    for (const w of [1, 2]) {
      feed.run(learner, 'gb300', (w - 1) * 10, w * 10);
      learner.closeWindow(w * 10);
    }
    const [p] = learner.progress();
    expect(p!.restoreFromPrior).toBe(true);
    expect(p!.fitted.prefill!.c3).toBe(setupOf('gb300', spec).prior.prefill.c3);
    // A truth whose restores cost more than the link allows: the fit stops at the bound.
    const bound = setupOf('gb300', spec).prior.prefill.c3;
    const costly: TruthSpec = { ...spec, prefill: { ...spec.prefill, c3: bound * 4 } };
    const capped = new OnlineLearner([setupOf('gb300', spec)]);
    const f2 = new Feed(costly, new Rng(7), servingWork);
    for (const w of [1, 2, 3, 4]) {
      f2.run(capped, 'gb300', (w - 1) * 10, w * 10);
      capped.closeWindow(w * 10);
    }
    expect(capped.progress()[0]!.fitted.prefill!.c3).toBe(bound);
  });

  it('is deterministic', () => {
    const once = (): string => {
      const learner = new OnlineLearner([setupOf('gb300', spec)]);
      const feed = new Feed(spec, new Rng(8), servingWork);
      for (const w of [1, 2]) {
        feed.run(learner, 'gb300', (w - 1) * 10, w * 10);
        learner.closeWindow(w * 10);
      }
      return JSON.stringify(learner.progress());
    };
    expect(once()).toBe(once());
  });

  it('rejects bad options', () => {
    expect(() => new OnlineLearner([], { windowSeconds: 0 })).toThrow(RangeError);
    expect(() => new OnlineLearner([], { tolerance: 0 })).toThrow(RangeError);
    expect(() => new OnlineLearner([], { agreements: 0 })).toThrow(RangeError);
    expect(() => new OnlineLearner([], { minSamples: 2 })).toThrow(RangeError);
  });
});

describe('the prior and the engine model', () => {
  it('the prior comes from public facts: generic costs over relative speeds, restore at link speed', () => {
    const facts = { kvBytesPerToken: 50_000, hostToGpuBandwidth: 5e11, prefillComputeSpeed: 0.5, decodeMemorySpeed: 0.25 };
    const p = priorCoefficients(facts);
    expect(p.prefill.c0).toBeCloseTo(GENERIC_PRIOR.prefill.c0 * 2, 15);
    expect(p.prefill.c2).toBeCloseTo(GENERIC_PRIOR.prefill.c2 * 2, 20);
    expect(p.prefill.c3).toBeCloseTo(1e-7, 20);
    expect(p.decode.d1).toBeCloseTo(GENERIC_PRIOR.decode.d1 * 4, 15);
  });

  it('LearnedIterationModel starts from the prior and takes each phase separately; decode has no context term', () => {
    const prior: EngineCoefficients = { prefill: { c0: 0.02, c1: 1e-4, c2: 0, c3: 0 }, decode: { d0: 0.01, d1: 0, d2: 0.001 } };
    const m = new LearnedIterationModel('x', spec.shape, prior);
    const work = [{ uncachedTokens: 100, cachedTokens: 0, restoredTokens: 0 }];
    expect(m.prefillTime(work)).toBeCloseTo(0.03, 12);
    m.adoptPrefill({ c0: 0.01, c1: 1e-4, c2: 0, c3: 0 });
    expect(m.prefillTime(work)).toBeCloseTo(0.02, 12);
    expect(m.source).toEqual({ prefill: 'fitted', decode: 'prior' });
    expect(m.decodeTime(4, 0)).toBeCloseTo(0.014, 12);
    expect(m.decodeTime(4, 1e6)).toBe(m.decodeTime(4, 0));
    expect(m.decodeTime(0, 0)).toBe(0);
  });
});
