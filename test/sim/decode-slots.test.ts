import { describe, expect, it } from 'vitest';
import { MECHANICS_PRESETS, Simulator, parseMechanics, type Mechanics } from '../../src/sim/index.js';
import type { MembershipChange } from '../../src/sim/membership.js';
import { SGLANG_SPECULATIVE_MAX_RUNNING } from '../../src/sim/transitions/decode-slots.js';
import { fakeHardware, range, scriptedSource, type ScriptedRequest } from './helpers.js';

describe('decodeSlots (SGLang PD: a decode slot is taken at dispatch, before prefill)', () => {
  // 50 requests at t = 0, 1,000-token prompts (2 blocks each, distinct; 1 ms
  // of prefill each, 16 to a batch), 2,001
  // output tokens: 1,000 decode iterations of 20 ms at 2 tokens each
  // (speculative decoding), so each decodes for 20 s.
  const script = (n: number): ScriptedRequest[] => range(0, n).map((i) => ({ at: 0, input: 1000, output: 2001, blocks: [2 * i, 2 * i + 1] }));

  function run(decodeSlots: Mechanics['decodeSlots'], opts: { tAcc?: number; decodeNodes?: number; membership?: MembershipChange[]; requests?: number } = {}) {
    const source = scriptedSource(script(opts.requests ?? 50));
    const decodeNodes = opts.decodeNodes ?? 1;
    const hw = () => fakeHardware({ tAcc: opts.tAcc ?? 2, maxDecodeBatch: 256, prefillPerToken: 1e-6 });
    const sim = new Simulator({
      hardware: range(0, 1 + decodeNodes).map(hw),
      roles: ['P', ...range(0, decodeNodes).map(() => 'D' as const)],
      mechanics: { ...MECHANICS_PRESETS['sglang-pd'], decodeSlots },
      source,
      seed: 1,
      warmupSeconds: 0,
      scoredSeconds: 3600,
      learning: 'given',
      membership: opts.membership,
    });
    const result = sim.run();
    return { result, source };
  }

  it('is dispatch in the sglang-pd preset only, and parses as an override', () => {
    expect(MECHANICS_PRESETS['sglang-pd'].decodeSlots).toBe('dispatch');
    expect(MECHANICS_PRESETS['evolving-infra'].decodeSlots).toBe('join');
    expect(MECHANICS_PRESETS.dynamo.decodeSlots).toBe('join');
    expect(parseMechanics('evolving-infra,decodeSlots=dispatch').decodeSlots).toBe('dispatch');
    expect(() => parseMechanics('sglang-pd,decodeSlots=later')).toThrow(/decodeSlots/);
    expect(SGLANG_SPECULATIVE_MAX_RUNNING).toBe(48);
  });

  it('join: all 50 decode together and end at once', () => {
    const { source } = run('join');
    expect(source.completed.size).toBe(50);
    const ends = [...source.completed.values()];
    expect(Math.max(...ends) - Math.min(...ends)).toBeLessThan(0.5);
    expect(Math.max(...ends)).toBeLessThan(21);
  });

  it('dispatch: 48 slots on a speculative decode node; the last 2 are not prefilled until a slot frees', () => {
    const { source, result } = run('dispatch');
    expect(source.completed.size).toBe(50);
    const first = range(0, 48).map((id) => source.completed.get(id)!);
    const last = [48, 49].map((id) => source.completed.get(id)!);
    expect(Math.max(...first)).toBeLessThan(21);
    // They wait ~20 s for the first completions, then prefill and decode 20 s more.
    for (const t of last) expect(t).toBeGreaterThan(40);
    // Their first token comes after the wait (~20 s each): TTFT counts it; under join every TTFT is under 0.1 s.
    expect(result.metrics.ttft.mean).toBeGreaterThan((2 * 19) / 50);
    expect(run('join').result.metrics.ttft.mean).toBeLessThan(0.1);
  });

  it('dispatch without speculative decoding: the slots are the engine batch limit (256), so nothing waits', () => {
    const { source } = run('dispatch', { tAcc: 1 });
    // 1 token per iteration: 2,000 iterations of 20 ms.
    const ends = [...source.completed.values()];
    expect(ends.length).toBe(50);
    expect(Math.max(...ends) - Math.min(...ends)).toBeLessThan(0.5);
  });

  it('dispatch, round-robin over 2 decode nodes: 25 each, nothing waits', () => {
    const { source } = run('dispatch', { decodeNodes: 2 });
    const ends = [...source.completed.values()];
    expect(ends.length).toBe(50);
    expect(Math.max(...ends)).toBeLessThan(21);
  });

  it('dispatch: a decode node that fails sends its waiting requests to be dispatched again; every request completes once', () => {
    // 100 requests, round-robin over 2 decode nodes: 48 hold slots on each, 2 wait on each (96 and 98 on
    // node 1, 97 and 99 on node 2). Node 2 fails at
    // 1 s: its 2 waiting go to node 1's queue; its 48 prefill again and decode on node 1 (without a slot).
    const { source } = run('dispatch', { decodeNodes: 2, requests: 100, membership: [{ node: 2, at: 1, event: 'down' }] });
    expect(source.completed.size).toBe(100);
    expect(source.completions.length).toBe(100);
    const waited = [96, 97, 98, 99].map((id) => source.completed.get(id)!);
    // The 4 that waited: behind node 1's 48 first (ending at ~20 s), then 20 s of decode.
    for (const t of waited) expect(t).toBeGreaterThan(40);
  });
});
