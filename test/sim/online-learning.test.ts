import { describe, expect, it } from 'vitest';
import { buildCluster, createSimulator, openWorkload, parseScenario, parseSplit, Simulator, type ScenarioInput, type SimResult } from '../../src/sim/index.js';
import { buildClusterFor } from '../../src/sim/cluster-setup.js';
import { coefficientsFor, loadModel, loadNodeKind, type ModelProfile } from '../../src/sim/profiles/index.js';
import type { DecodeCoefficients, PrefillCoefficients } from '../../src/sim/perf/index.js';

// Online learning of the iteration-time model, end to end (design:
// src/sim/learning/README.md). Coefficients are never written here: they come
// from the profiles, which the calibration tunes.

const cc: ScenarioInput = { workload: 'cc', warmupMinutes: 2, minutes: 2, seed: 1 };
// osworld agents set up an environment before their first call: the warm-up must outlast that.
const osworld: ScenarioInput = { workload: 'osworld', warmupMinutes: 4, minutes: 2, seed: 1 };

const runs = new Map<string, SimResult>();
function run(input: ScenarioInput): SimResult {
  const key = JSON.stringify(input);
  if (!runs.has(key)) runs.set(key, createSimulator(parseScenario(input)).run());
  return runs.get(key)!;
}

function relErr(fitted: number, truth: number): number {
  return Math.abs(fitted / truth - 1);
}

describe('online learning on the calibration workloads', () => {
  for (const [name, input, model] of [
    ['cc / glm-5.2 on gb300', cc, 'glm-5.2'],
    ['osworld / kimi-k2.6 on gb300', osworld, 'kimi-k2.6'],
  ] as const) {
    it(`${name}: converges within 60 s of serving, with under 7% error against the noise-free truth`, () => {
      const l = run(input).learning;
      expect(l.mode).toBe('online');
      expect(l.convergedAtSeconds).not.toBeNull();
      expect(l.convergenceSeconds).not.toBeNull();
      expect(l.convergenceSeconds!).toBeLessThanOrEqual(60);
      expect(l.convergedAtSeconds!).toBeLessThan(input.warmupMinutes! * 60);
      // Each kind's first iteration starts the clock; cc serves from the start.
      if (input.workload === 'cc') expect(l.convergedAtSeconds!).toBeLessThanOrEqual(60);
      for (const key of ['prefillSingle', 'prefillBatch', 'decode', 'mean'] as const) {
        expect(l.mape[key], key).not.toBeNull();
        expect(l.mape[key]!, key).toBeLessThan(7);
      }
      const k = l.byKind.gb300!;
      expect(k.scored.prefillSingle).toBeGreaterThan(100);
      expect(k.scored.decode).toBeGreaterThan(100);
      expect(k.samples.prefill).toBeGreaterThanOrEqual(64);
      expect(k.samples.decode).toBeGreaterThanOrEqual(64);
      // The fit lands on the truth's identifiable terms (the truth of this kind, read from the profiles).
      const truth = coefficientsFor(loadModel(model), loadNodeKind('gb300'));
      expect(k.truth).toEqual({ prefill: truth.prefill, decode: truth.decode });
      expect(relErr(k.fitted.prefill!.c1, truth.prefill.c1)).toBeLessThan(0.05);
      expect(relErr(k.fitted.prefill!.c2, truth.prefill.c2)).toBeLessThan(0.05);
      expect(relErr(k.fitted.decode!.d0, truth.decode.d0)).toBeLessThan(0.1);
      // After convergence only the workload is measured; the frozen model stays unbiased against measured times.
      expect(k.remeasured.prefillIterations).toBe(k.scored.prefillSingle + k.scored.prefillBatch);
      expect(Math.abs(k.remeasured.measuredOverPredicted.prefill - 1)).toBeLessThan(0.07);
      expect(Math.abs(k.remeasured.measuredOverPredicted.decode - 1)).toBeLessThan(0.07);
    });
  }

  it('is deterministic: the same seed learns the same model; another seed learns another', () => {
    const a = run(cc).learning;
    const b = createSimulator(parseScenario(cc)).run().learning;
    const c = createSimulator(parseScenario({ ...cc, seed: 2 })).run().learning;
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(JSON.stringify(c.byKind.gb300!.fitted)).not.toBe(JSON.stringify(a.byKind.gb300!.fitted));
  });
});

describe('the learning phase', () => {
  it('every node serves both phases until the fit converges, then the configured roles are back; routing and ctx.model use the fit', () => {
    const scenario = parseScenario(cc);
    const sim = createSimulator(scenario);
    const prior = buildCluster(['gb300'], 'glm-5.2', 1).policyModel.byKind.gb300!;
    sim.advanceTo(1);
    expect(sim.learningPhase).toBe(true);
    // Before convergence policies see the prior, not the truth.
    expect(sim.buildCtx().model.byKind.gb300!.prefill).toEqual(prior.prefill);
    // Configured decode nodes (4P5D: nodes 4..8) prefill too: they hold the prompts' KV (hundreds of
    // blocks each), where decoding alone leaves only the few blocks its output completes.
    sim.advanceTo(20);
    expect([4, 5, 6, 7, 8].every((n) => sim.cachedBlocks(n, 1) > 50)).toBe(true);
    let t = 20;
    while (sim.learningPhase && t < scenario.warmupMinutes * 60) sim.advanceTo((t += 5));
    expect(sim.learningPhase).toBe(false);
    const ctx = sim.buildCtx();
    expect(ctx.nodes.map((n) => n.role)).toEqual(parseSplit('4P5D', 9));
    const result = sim.finish();
    const fitted = result.learning.byKind.gb300!.fitted;
    expect(result.learning.collocatedUntilSeconds).toBe(result.learning.convergedAtSeconds);
    expect(ctx.model.byKind.gb300!.prefill).toEqual(fitted.prefill);
    expect(ctx.model.byKind.gb300!.decode).toEqual(fitted.decode);
    expect(ctx.model.byKind.gb300!.prefill).not.toEqual(prior.prefill);
    expect(result.finalSplit).toBe('4P5D');
  });

  it('with collocate off the configured roles hold throughout and the fit still converges (later: decode batches spread thin)', () => {
    const scenario = parseScenario({ ...cc, warmupMinutes: 6, minutes: 0.5 });
    const source = openWorkload(scenario);
    const { hardware } = buildCluster(Array(9).fill('gb300'), source.model, scenario.seed);
    const sim = new Simulator({
      hardware,
      roles: parseSplit(scenario.split, 9),
      mechanics: scenario.mechanics,
      source,
      seed: scenario.seed,
      warmupSeconds: scenario.warmupMinutes * 60,
      scoredSeconds: scenario.minutes * 60,
      learningOptions: { collocate: false },
    });
    sim.advanceTo(20);
    expect(sim.learningPhase).toBe(false);
    expect([4, 5, 6, 7, 8].every((n) => sim.cachedBlocks(n, 1) < 50)).toBe(true);
    const l = sim.run().learning;
    expect(l.collocatedUntilSeconds).toBeNull();
    expect(l.convergedAtSeconds).not.toBeNull();
  });
});

describe('the engine never reads the truth', () => {
  const base = loadModel('glm-5.2');
  const scale = (m: ModelProfile, p: Partial<Record<keyof PrefillCoefficients, number>>, d: Partial<Record<keyof DecodeCoefficients, number>>): ModelProfile => ({
    ...m,
    prefill: { c0: m.prefill.c0 * (p.c0 ?? 1), c1: m.prefill.c1 * (p.c1 ?? 1), c2: m.prefill.c2 * (p.c2 ?? 1), c3: m.prefill.c3 * (p.c3 ?? 1) },
    decode: { d0: m.decode.d0 * (d.d0 ?? 1), d1: m.decode.d1 * (d.d1 ?? 1), d2: m.decode.d2 * (d.d2 ?? 1) },
  });
  const perturbed = scale(base, { c0: 1.6, c1: 1.5, c2: 0.6 }, { d0: 1.4, d1: 0.7 });
  const gb300 = loadNodeKind('gb300');

  it('hardware carries no engine model and the same prior whatever the truth', () => {
    const a = buildClusterFor([gb300], base, 1);
    const b = buildClusterFor([gb300], perturbed, 1);
    expect(a.hardware[0]!.engine).toBeUndefined();
    expect(b.hardware[0]!.engineSetup).toEqual(a.hardware[0]!.engineSetup);
    expect(b.policyModel).toEqual(a.policyModel);
  });

  it('a cluster whose truth differs learns that truth, not the profile it started from', () => {
    const scenario = parseScenario(cc);
    const source = openWorkload(scenario);
    const kinds = Array(9).fill(gb300);
    const { hardware } = buildClusterFor(kinds, perturbed, scenario.seed);
    const sim = new Simulator({
      hardware,
      roles: parseSplit(scenario.split, 9),
      mechanics: scenario.mechanics,
      source,
      seed: scenario.seed,
      warmupSeconds: scenario.warmupMinutes * 60,
      scoredSeconds: scenario.minutes * 60,
    });
    const l = sim.run().learning;
    const fitted = l.byKind.gb300!.fitted;
    const truth = coefficientsFor(perturbed, gb300);
    const original = coefficientsFor(base, gb300);
    expect(l.convergedAtSeconds).not.toBeNull();
    for (const c of ['c0', 'c1', 'c2'] as const) {
      expect(relErr(fitted.prefill![c], truth.prefill[c]), c).toBeLessThan(c === 'c0' ? 0.15 : 0.05);
      expect(relErr(fitted.prefill![c], original.prefill[c]), c).toBeGreaterThan(0.2);
    }
    expect(relErr(fitted.decode!.d0, truth.decode.d0)).toBeLessThan(0.1);
    expect(relErr(fitted.decode!.d0, original.decode.d0)).toBeGreaterThan(0.2);
    expect(relErr(fitted.decode!.d1, truth.decode.d1)).toBeLessThan(0.2);
    expect(l.mape.mean!).toBeLessThan(7);
  });
});

describe('mixed node kinds', () => {
  it('fits each kind on its own iterations, each near its own truth', () => {
    const kinds = ['gb300', 'gb300', 'gb300', 'gb300', 'h200', 'h200', 'h200', 'h200', 'h200'];
    const l = createSimulator(parseScenario({ ...cc, nodeKinds: kinds, warmupMinutes: 5, minutes: 1 })).run().learning;
    expect(Object.keys(l.byKind).sort()).toEqual(['gb300', 'h200']);
    expect(l.convergedAtSeconds).not.toBeNull();
    const model = loadModel('glm-5.2');
    for (const kind of ['gb300', 'h200']) {
      const k = l.byKind[kind]!;
      const truth = coefficientsFor(model, loadNodeKind(kind));
      expect(k.convergedAtSeconds, kind).not.toBeNull();
      expect(k.truth!.prefill).toEqual(truth.prefill);
      expect(relErr(k.fitted.prefill!.c1, truth.prefill.c1), kind).toBeLessThan(0.05);
      expect(relErr(k.fitted.decode!.d0, truth.decode.d0), kind).toBeLessThan(0.1);
      expect(k.mape.mean!, kind).toBeLessThan(7);
    }
    // The kinds differ, and each fit follows its own kind rather than a pooled one.
    const g = l.byKind.gb300!.fitted.prefill!.c1;
    const h = l.byKind.h200!.fitted.prefill!.c1;
    const ratio = coefficientsFor(model, loadNodeKind('h200')).prefill.c1 / coefficientsFor(model, loadNodeKind('gb300')).prefill.c1;
    expect(relErr(h / g, ratio)).toBeLessThan(0.05);
  });
});

describe('learning given', () => {
  it('online learning needs what the engine starts from; given needs an engine model', () => {
    const scenario = parseScenario({ ...cc, minutes: 0.1, warmupMinutes: 0 });
    const source = openWorkload(scenario);
    const { hardware } = buildCluster(['gb300', 'gb300'], source.model, 1);
    const common = { roles: parseSplit('1P1D', 2), mechanics: scenario.mechanics, source, seed: 1, warmupSeconds: 0, scoredSeconds: 6 };
    expect(() => new Simulator({ ...common, hardware, learning: 'given' })).toThrow(/hw.engine/);
    const bare = hardware.map(({ engineSetup: _, ...hw }) => hw);
    expect(() => new Simulator({ ...common, hardware: bare })).toThrow(/engineSetup/);
    const given = hardware.map((hw) => ({ ...hw, engine: hw.truthReference!.expected }));
    const l = new Simulator({ ...common, hardware: given, learning: 'given' }).run().learning;
    expect(l).toMatchObject({ mode: 'given', convergedAtSeconds: null, byKind: {} });
  });
});
