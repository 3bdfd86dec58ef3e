import { describe, expect, it } from 'vitest';
import { Simulator, MECHANICS_PRESETS, plainPolicy, type Mechanics, type Role } from '../../src/sim/index.js';
import { prefillIterations } from '../../src/sim/prefill-chunks.js';
import { packDecode } from '../../src/sim/routing/decode.js';
import { fakeHardware, range, scriptedSource, type ScriptedRequest } from './helpers.js';

const evolving: Mechanics = { ...MECHANICS_PRESETS['evolving-infra'], prefillRouting: 'even-load' };

function run(opts: {
  requests: ScriptedRequest[];
  roles: Role[];
  mechanics?: Partial<Mechanics>;
  hw?: Parameters<typeof fakeHardware>[0];
  horizon?: number;
  policy?: Parameters<typeof plainPolicy>[0];
  membership?: { node: number; at: number; event: 'down' | 'up' }[];
}) {
  const source = scriptedSource(opts.requests);
  const sim = new Simulator({
    hardware: opts.roles.map(() => fakeHardware(opts.hw)),
    roles: opts.roles,
    mechanics: { ...evolving, ...opts.mechanics },
    source,
    seed: 1,
    warmupSeconds: 0,
    scoredSeconds: opts.horizon ?? 3600,
    policy: opts.policy ? plainPolicy(opts.policy) : undefined,
    membership: opts.membership,
    // Exact timings: the hand-made engine model, nothing learned.
    learning: 'given',
  });
  const result = sim.run();
  return { result, source, sim };
}

describe('asynchronous fetch', () => {
  // R0 leaves 100 blocks on node 0; the small GPU (50 blocks) keeps only half of
  // them, so the other half of R1's prefix comes back from host memory
  // (50 blocks * 512 tokens * 1e-5 s = 0.256 s).
  // A big request keeps the node busy while R1 waits in the queue.
  const requests: ScriptedRequest[] = [
    { at: 0, input: 100 * 512, output: 1, blocks: range(0, 100) },
    { at: 6, input: 60_000, output: 1, blocks: range(1000, 117) },
    { at: 6.5, input: 100 * 512 + 100, output: 1, blocks: range(0, 100) },
  ];
  const hw = { l1Blocks: 50, l2Blocks: 10_000 };

  it('hides the fetch under the queue wait (async) but adds it to prefill (at-start)', () => {
    const asyncRun = run({ requests, roles: ['P', 'D'], hw, mechanics: { fetch: 'async' } });
    const atStart = run({ requests, roles: ['P', 'D'], hw, mechanics: { fetch: 'at-start' } });
    const a = asyncRun.source.completed.get(2)!;
    const s = atStart.source.completed.get(2)!;
    const busyEnd = asyncRun.source.completed.get(1)!;
    // async: R1 starts as soon as the busy request ends; its own prefill is 0.01 + 100 tokens * 1e-4.
    expect(a).toBeCloseTo(busyEnd + 0.02, 6);
    // at-start: the 0.256 s fetch is added.
    expect(s - a).toBeCloseTo(50 * 512 * 1e-5, 6);
  });

  it('makes the request wait for its fetch when the queue is shorter than the fetch', () => {
    const solo: ScriptedRequest[] = [requests[0]!, { ...requests[2]!, at: 10 }];
    const { source } = run({ requests: solo, roles: ['P', 'D'], hw, mechanics: { fetch: 'async' } });
    expect(source.completed.get(1)!).toBeCloseTo(10 + 50 * 512 * 1e-5 + 0.02, 6);
  });
});

describe('role transitions', () => {
  // Six 5 s prefills, routed alternately to node 0 and node 1. 50,000 tokens are
  // more than the 16,384-token iteration budget: each runs as 4 chunked-prefill
  // iterations, 4 x 0.01 s fixed cost + 50,000 x 1e-4 s = 5.04 s.
  const big = (i: number): ScriptedRequest => ({ at: 0, input: 50_000, output: 1, blocks: range(i * 1000, 97) });
  const switchNode0ToDecode = {
    shouldReschedule: (ctx: { now: number; plan: { roles: Role[] } }) => ctx.now >= 1 && ctx.plan.roles[0] === 'P',
    schedule: () => ({ roles: ['D', 'P', 'D'] as Role[] }),
  };

  it('symmetric P->D: queued requests move to the other prefill node, the running one finishes in place, KV is kept', () => {
    const { result, source, sim } = run({ requests: range(0, 6).map(big), roles: ['P', 'P', 'D'], policy: switchNode0ToDecode });
    expect(source.completed.size).toBe(6);
    const t = result.transitions[0]!;
    expect(t).toMatchObject({ node: 0, from: 'P', to: 'D', kind: 'symmetric' });
    // The running request (5.04 s) finished in place; the switch ended then.
    expect(t.end! - t.start).toBeCloseTo(5.04 - 5, 6);
    // Node 0 served only the one it was running: 4 of the other 5 went through node 1 after the move.
    const ctx = sim.buildCtx();
    expect(ctx.nodes[0]!.role).toBe('D');
    expect(sim.cachedBlocks(0, 1)).toBeGreaterThan(0); // P->D keeps KV
    expect(result.finalSplit).toBe('1P2D');
  });

  it('symmetric D->P: running decodes finish in place, then the GPU KV is emptied but the host copy of what it produced stays', () => {
    // 5,120 prompt + 400 output tokens: decoding completes block 10, which the decode node writes to the pool.
    const requests: ScriptedRequest[] = [{ at: 0, input: 5120, output: 400, blocks: range(0, 10), produced: [10] }];
    const toPrefill = {
      shouldReschedule: (ctx: { now: number; plan: { roles: Role[] } }) => ctx.now >= 1 && ctx.plan.roles[1] === 'D',
      schedule: () => ({ roles: ['P', 'P', 'D'] as Role[] }),
    };
    const { result, source, sim } = run({ requests, roles: ['P', 'D', 'D'], policy: toPrefill, mechanics: { decodeRouting: 'round-robin' } });
    // round-robin sends the first decode to node 1, which is then switched while decoding.
    expect(source.completed.size).toBe(1);
    const finish = source.completed.get(0)!;
    const t = result.transitions.find((x) => x.node === 1)!;
    expect(t.end).toBeCloseTo(finish, 9);
    expect(sim.cachedBlocks(1, 1)).toBe(0);
    expect(sim.cachedBlocks(1, 2)).toBe(1);
  });

  it('restart transitions take the profile restart time and lose all KV', () => {
    const { result, sim } = run({
      requests: range(0, 2).map(big),
      roles: ['P', 'P', 'D'],
      policy: switchNode0ToDecode,
      mechanics: { transition: 'restart' },
      hw: { restart: 700 },
    });
    const t = result.transitions[0]!;
    expect(t.kind).toBe('restart');
    expect(t.end! - t.start).toBeCloseTo(0.04 + 700, 6);
    const kv = sim.buildCtx().nodes[0]!.kv;
    expect(kv.l1Used + kv.l2Used).toBe(0);
  });
});

describe('conservation', () => {
  it('every request completes exactly once across role flips and node failures', () => {
    const requests: ScriptedRequest[] = range(0, 300).map((i) => ({
      at: i * 0.7,
      branch: i % 17,
      input: 2000 + ((i * 7919) % 30000),
      output: 1 + ((i * 104729) % 600),
      blocks: range((i % 17) * 100_000, Math.floor((2000 + ((i * 7919) % 30000)) / 512)),
    }));
    let flips = 0;
    const flipper = {
      shouldReschedule: (ctx: { now: number }) => Math.floor(ctx.now / 40) > flips,
      schedule: (ctx: { now: number; plan: { roles: Role[] } }) => {
        flips = Math.floor(ctx.now / 40);
        const roles = [...ctx.plan.roles];
        const i = flips % roles.length;
        roles[i] = roles[i] === 'P' ? 'D' : 'P';
        if (!roles.includes('P')) roles[0] = 'P';
        if (!roles.includes('D')) roles[1] = 'D';
        return { roles };
      },
    };
    const completions = new Map<number, number>();
    const membership = [
      { node: 1, at: 30, event: 'down' as const },
      { node: 3, at: 55, event: 'down' as const },
      { node: 1, at: 90, event: 'up' as const },
      { node: 0, at: 120, event: 'down' as const },
      { node: 3, at: 150, event: 'up' as const },
    ];
    const { result, source } = run({ requests, roles: ['P', 'P', 'D', 'D', 'D'], policy: flipper, membership, horizon: 4000 });
    for (const id of source.completions) completions.set(id, (completions.get(id) ?? 0) + 1);
    // Each of the 300 completed, and none twice.
    expect([...completions.keys()].sort((a, b) => a - b)).toEqual(range(0, 300));
    expect([...completions.values()].every((n) => n === 1)).toBe(true);
    expect(result.metrics.requestsCompleted).toBe(300);
    expect(result.metrics.requestsArrived).toBe(300);
    expect(source.completed.size + result.metrics.requestsInFlight).toBe(300);
    expect(result.metrics.requestsInFlight).toBe(0);
    expect(result.transitions.length).toBeGreaterThan(3);
  });

  it('reports requests still in flight at the end instead of dropping them', () => {
    const requests = range(0, 50).map((i) => ({ at: i * 0.01, input: 40_000, output: 2000, blocks: range(i * 1000, 78) }));
    const { result, source } = run({ requests, roles: ['P', 'D'], horizon: 20 });
    expect(result.metrics.requestsArrived).toBe(50);
    expect(result.metrics.requestsInFlight).toBeGreaterThan(0);
    expect(source.completed.size + result.metrics.requestsInFlight).toBe(50);
  });

  it('a failure that removes the only prefill node makes the data plane flip a decode node', () => {
    const requests = range(0, 20).map((i) => ({ at: 1 + i, input: 4000, output: 10, blocks: range(i * 100, 7) }));
    const { result, source } = run({ requests, roles: ['P', 'D', 'D'], membership: [{ node: 0, at: 5, event: 'down' }] });
    expect(source.completed.size).toBe(20);
    expect(result.finalSplit).toBe('1P1D');
  });
});

describe('chunked prefill', () => {
  it('a prompt longer than the iteration budget runs as chunks, each attending to the prompt before it', () => {
    const chunks = prefillIterations([{ uncachedTokens: 40_000, cachedTokens: 1000, restoredTokens: 500 }], 16_384);
    expect(chunks).toEqual([
      [{ uncachedTokens: 16_384, cachedTokens: 1000, restoredTokens: 500 }],
      [{ uncachedTokens: 16_384, cachedTokens: 1000 + 16_384, restoredTokens: 0 }],
      [{ uncachedTokens: 40_000 - 2 * 16_384, cachedTokens: 1000 + 2 * 16_384, restoredTokens: 0 }],
    ]);
    const batch = [
      { uncachedTokens: 100, cachedTokens: 0, restoredTokens: 0 },
      { uncachedTokens: 200, cachedTokens: 0, restoredTokens: 0 },
    ];
    expect(prefillIterations(batch, 16_384)).toEqual([batch]);
    expect(prefillIterations([batch[0]!], 16_384)).toEqual([[batch[0]!]]);
  });

  it('the simulator times it as the sum of its chunks (a fixed cost per chunk)', () => {
    const { source } = run({ requests: [{ at: 0, input: 40_000, output: 1, blocks: range(0, 78) }], roles: ['P', 'D'] });
    expect(source.completed.get(0)!).toBeCloseTo(3 * 0.01 + 40_000 * 1e-4, 9);
  });
});

describe('decode packing while learning', () => {
  const node = (id: number, kind: string, load: number, max = 4) =>
    ({ id, hw: { kind, maxDecodeBatch: max }, decodeLoad: load }) as unknown as Parameters<typeof packDecode>[0][number];

  const pack = (nodes: Parameters<typeof packDecode>[0], kind: string) => packDecode(nodes, nodes, kind);

  it('sends to the most loaded node of the kind with room, lowest id on ties; the least loaded when all are full', () => {
    expect(pack([node(0, 'a', 1), node(1, 'a', 3), node(2, 'a', 3), node(3, 'b', 3)], 'a').id).toBe(1);
    expect(pack([node(0, 'a', 4), node(1, 'a', 2), node(2, 'b', 3)], 'a').id).toBe(1);
    expect(pack([node(0, 'a', 5), node(1, 'a', 4)], 'a').id).toBe(1);
    // No node of the kind accepts decode: any node will do.
    expect(pack([node(0, 'b', 1), node(1, 'b', 2)], 'a').id).toBe(1);
  });
});
