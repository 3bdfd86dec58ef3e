import { describe, expect, it } from 'vitest';
import { Simulator, MECHANICS_PRESETS, type Mechanics } from '../../src/sim/index.js';
import { layerwiseWait } from '../../src/sim/perf/layerwise-load.js';
import { fakeHardware, range, scriptedSource, type ScriptedRequest } from './helpers.js';

describe('layerwiseWait', () => {
  it('is the first layer share of the load when the compute is longer', () => {
    expect(layerwiseWait(0.07, 2, 70)).toBeCloseTo(0.001, 12);
  });
  it('is the load beyond the compute of all but the last layer when the load paces the forward', () => {
    expect(layerwiseWait(1, 0.5, 10)).toBeCloseTo(1 - 0.45, 12);
  });
  it('is 0 with nothing to load, and the whole load with one layer and no compute', () => {
    expect(layerwiseWait(0, 1, 70)).toBe(0);
    expect(layerwiseWait(0.3, 0, 1)).toBeCloseTo(0.3, 12);
  });
});

describe('fetchOverlap layerwise (at-start fetch as SGLang HiCache loads it)', () => {
  // As the asynchronous-fetch tests of simulator.test.ts: R0 leaves 100 blocks
  // on node 0, whose 50-block GPU keeps half; R2's prefix has 50 blocks
  // (25,600 tokens) in host memory; R1 keeps the node busy meanwhile. R2's
  // own prefill is 0.01 + 100 tokens * 1e-4 = 0.02 s in one iteration.
  const requests: ScriptedRequest[] = [
    { at: 0, input: 100 * 512, output: 1, blocks: range(0, 100) },
    { at: 6, input: 60_000, output: 1, blocks: range(1000, 117) },
    { at: 6.5, input: 100 * 512 + 100, output: 1, blocks: range(0, 100) },
  ];

  function run(overlap: Mechanics['fetchOverlap'], loadPerToken: number): Map<number, number> {
    const source = scriptedSource(requests);
    const hw = () => ({ ...fakeHardware({ l1Blocks: 50, l2Blocks: 10_000 }), layerwiseLoad: { seconds: (t: number) => t * loadPerToken, layers: 10 } });
    const sim = new Simulator({
      hardware: [hw(), hw()],
      roles: ['P', 'D'],
      mechanics: { ...MECHANICS_PRESETS['sglang-pd'], fetchOverlap: overlap },
      source,
      seed: 1,
      warmupSeconds: 0,
      scoredSeconds: 3600,
      learning: 'given',
    });
    sim.run();
    return source.completed;
  }

  it('waits for the load beyond the compute when the load is the longer (0.256 s of load under 0.02 s of compute)', () => {
    const none = run('none', 1e-5).get(2)!;
    const layerwise = run('layerwise', 1e-5);
    const busyEnd = layerwise.get(1)!;
    // none: the whole 0.256 s fetch (fakeHardware's 1e-5 s per token) comes first.
    expect(none - busyEnd).toBeCloseTo(0.256 + 0.02, 6);
    // layerwise: 9 of the 10 layers' compute run under the load.
    expect(layerwise.get(2)! - busyEnd).toBeCloseTo(0.256 - 0.02 * 0.9 + 0.02, 6);
  });

  it('waits for the first layer only when the load is shorter than the compute', () => {
    const layerwise = run('layerwise', 1e-7);
    expect(layerwise.get(2)! - layerwise.get(1)!).toBeCloseTo(25_600 * 1e-7 / 10 + 0.02, 6);
  });
});
