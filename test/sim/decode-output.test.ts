import { describe, expect, it } from 'vitest';
import { MECHANICS_PRESETS, Simulator, parseMechanics, type Mechanics } from '../../src/sim/index.js';
import { KvDirectory } from '../../src/sim/kv/index.js';
import { fakeHardware, range, scriptedSource, type ScriptedRequest } from './helpers.js';

describe('decodeOutput (what a decode node keeps of what it generated)', () => {
  // One branch, two calls. R0: 10 full prompt blocks + 100 tokens, 1,000
  // output tokens: decode fills blocks 10 and 11 (6,220 tokens = 12 full
  // blocks). R1, after R0 ended: R0's context (blocks 0-11) + 900 tokens,
  // one more full block (100). Node 0 prefills, node 1 decodes, shared pool.
  const requests: ScriptedRequest[] = [
    { at: 0, branch: 0, input: 10 * 512 + 100, output: 1000, blocks: range(0, 10), produced: [10, 11] },
    { at: 100, branch: 0, input: 10 * 512 + 100 + 1000 + 900, output: 1, blocks: [...range(0, 12), 100] },
  ];

  function run(decodeOutput: Mechanics['decodeOutput']) {
    const source = scriptedSource(requests);
    const sim = new Simulator({
      hardware: [fakeHardware(), fakeHardware()],
      roles: ['P', 'D'],
      mechanics: { ...MECHANICS_PRESETS['evolving-infra'], decodeOutput },
      source,
      seed: 1,
      warmupSeconds: 0,
      scoredSeconds: 3600,
      learning: 'given',
    });
    const result = sim.run();
    return { result, source, sim };
  }

  it('is cached in every preset and parses as an override', () => {
    for (const m of Object.values(MECHANICS_PRESETS)) expect(m.decodeOutput).toBe('cached');
    expect(parseMechanics('evolving-infra,decodeOutput=dropped').decodeOutput).toBe('dropped');
    expect(() => parseMechanics('evolving-infra,decodeOutput=host')).toThrow(/decodeOutput/);
  });

  it('cached: the next call reuses the blocks decode filled, from the decode node via the pool', () => {
    const { result, source, sim } = run('cached');
    expect(source.completed.size).toBe(2);
    expect(sim.cachedBlocks(1, 1)).toBe(2);
    expect(sim.cachedBlocks(1, 2)).toBe(2);
    // Hits: R0 none, R1 12 blocks (6,144 tokens) of 12,340 prompt tokens; all of the ideal.
    expect(result.metrics.kvHitRate.actual).toBeCloseTo(6144 / 12_340, 4);
    expect(result.metrics.kvHitRate.ideal).toBeCloseTo(6144 / 12_340, 4);
    expect(result.metrics.lostKvReusePct).toBe(0);
  });

  it('dropped: the decode node keeps nothing, and the next call recomputes what it generated (lost reuse, not a lower ideal)', () => {
    const { result, source, sim } = run('dropped');
    expect(source.completed.size).toBe(2);
    expect(sim.cachedBlocks(1, 1)).toBe(0);
    expect(sim.cachedBlocks(1, 2)).toBe(0);
    // R1 finds only R0's prompt (10 blocks, 5,120 tokens); blocks 10 and 11 still count as produced.
    expect(result.metrics.kvHitRate.actual).toBeCloseTo(5120 / 12_340, 4);
    expect(result.metrics.kvHitRate.ideal).toBeCloseTo(6144 / 12_340, 4);
    expect(result.metrics.lostKvReusePct).toBeCloseTo((100 * 1024) / 6144, 2);
  });

  it('dropped: the recomputed output lengthens the next prefill by its tokens', () => {
    const cached = run('cached').source.completed.get(1)!;
    const dropped = run('dropped').source.completed.get(1)!;
    // 1,024 more uncached tokens at 1e-4 s each; cached first fetched the 2
    // blocks (1,024 tokens) from the decode node's host memory to its own and
    // on to the GPU, at 1e-5 s per token each way, while the queue was empty.
    expect(dropped - cached).toBeCloseTo(1024 * 1e-4 - 2 * 1024 * 1e-5, 6);
  });

  it('KvDirectory.markProduced: the blocks extend the ideal prefix, are resident nowhere, and the directory stays consistent', () => {
    const kv = new KvDirectory({ nodeCount: 2, l1CapacityBlocks: [10, 10], l2CapacityBlocks: [40, 40], eviction: 'refcount' });
    kv.admitPrefill(0, 0, range(0, 10), 1);
    kv.markProduced([10, 11]);
    kv.checkInvariants();
    const m = kv.match([...range(0, 12), 100]);
    expect(m.ideal).toBe(12);
    expect(m.pool).toBe(10);
    expect(kv.everProduced(11)).toBe(true);
    expect(kv.everProduced(100)).toBe(false);
  });
});
