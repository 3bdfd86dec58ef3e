import { describe, expect, it } from 'vitest';
import { CtxSchema, validatePlan } from '../../src/policy/index.js';
import { MECHANICS_PRESETS, plainPolicy, Simulator, type Mechanics, type Role } from '../../src/sim/index.js';
import type { PolicyCtx } from '../../src/sim/policy-hook.js';
import { directory } from './kv/helpers.js';
import { fakeHardware, range, scriptedSource, type ScriptedRequest } from './helpers.js';

/**
 * Contract v2 knobs on small hand-made cases: each takes effect when the plan
 * applies, a plan without them changes nothing, and bad values are rejected
 * naming the field.
 */

type Knobs = Omit<ReturnType<Parameters<typeof plainPolicy>[0]['schedule']>, 'roles'>;

function run(opts: { requests: ScriptedRequest[]; roles: Role[]; mechanics?: Partial<Mechanics>; hw?: Parameters<typeof fakeHardware>[0]; horizon?: number; policy?: Parameters<typeof plainPolicy>[0] }) {
  const source = scriptedSource(opts.requests);
  const sim = new Simulator({
    hardware: opts.roles.map(() => fakeHardware(opts.hw)),
    roles: opts.roles,
    mechanics: { ...MECHANICS_PRESETS['evolving-infra'], ...opts.mechanics },
    source,
    seed: 1,
    warmupSeconds: 0,
    scoredSeconds: opts.horizon ?? 3600,
    policy: opts.policy ? plainPolicy(opts.policy) : undefined,
    learning: 'given',
  });
  return { result: sim.run(), source, sim };
}

/** A policy that sends one plan at its first call (t = 5 s): `roles` from ctx unless given, plus `knobs`. */
function once(knobs: Knobs, roles?: (ctx: PolicyCtx) => Role[]) {
  let done = false;
  return {
    shouldReschedule: () => !done,
    schedule: (ctx: PolicyCtx) => {
      done = true;
      return { roles: roles ? roles(ctx) : [...ctx.plan.roles], ...knobs };
    },
  };
}

/**
 * Four branches, each sending 8 requests whose prefix grows by 4 blocks; the
 * four arrive within a millisecond every 20 s, from t = 10, in an order that
 * rotates each round (so a load-only router sends a branch elsewhere each time).
 */
const branchRequests: ScriptedRequest[] = range(0, 8)
  .flatMap((k) => range(0, 4).map((b) => ({ at: 10 + 20 * k + ((b + k) % 4) * 2.5e-4, branch: b, input: (20 + 4 * k) * 512, output: 1, blocks: range(b * 1000, 20 + 4 * k) })))
  .sort((x, y) => x.at - y.at);

describe('ctx v2 fields', () => {
  it('per slice lost KV reuse and the share of KV at count 0, per prefill node its wait and fetch backlog', () => {
    const { sim } = run({ requests: branchRequests, roles: ['P', 'P', 'D'], mechanics: { pool: 'local', prefillRouting: 'even-load' }, horizon: 200 });
    const ctx = sim.buildCtx();
    expect(CtxSchema.safeParse(ctx).success).toBe(true);
    expect(ctx.version).toBe(2);
    const lost = ctx.window.slices.map((x) => x.lostKvReuse).filter((x): x is number => x !== null);
    expect(lost.length).toBeGreaterThan(0);
    expect(Math.max(...lost)).toBeGreaterThan(0);
    const unref = ctx.window.slices.map((x) => x.kvUnreferencedShare).filter((x): x is number => x !== null);
    // Every branch is still active (none ended): all the cached KV is counted by one.
    expect(unref.length).toBeGreaterThan(0);
    expect(unref.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(ctx.nodes.map((n) => n.prefill === null)).toEqual([false, false, true]);
    expect(ctx.mechanics).toMatchObject({ pool: 'local', routing: { prefill: 'even-load' }, eviction: { order: 'refcount', protectWaiting: 'both' }, transitions: { maxConcurrent: null } });
    const lru = run({ requests: branchRequests, roles: ['P', 'P', 'D'], mechanics: { eviction: 'lru' }, horizon: 200 });
    expect(lru.sim.buildCtx().window.slices.every((x) => x.kvUnreferencedShare === null)).toBe(true);
  });

  it('queue wait and fetch backlog of a busy prefill node', () => {
    const requests: ScriptedRequest[] = [
      { at: 1, input: 100_000, output: 1, blocks: range(0, 195) },
      { at: 1.5, input: 20_000, output: 1, blocks: range(1000, 39) },
    ];
    let seen: PolicyCtx['nodes'][number]['prefill'] = null;
    const policy = { shouldReschedule: (ctx: PolicyCtx) => ((seen ??= ctx.now === 5 ? ctx.nodes[0]!.prefill : null), false), schedule: (ctx: PolicyCtx) => ({ roles: ctx.plan.roles }) };
    run({ requests, roles: ['P', 'D'], policy });
    // 100k tokens from t = 1 in 7 chunks of at most 16,384: 7 x 0.01 + 10 s, 6.07 s left at t = 5;
    // the queued 20k-token prompt (2 chunks) adds its predicted 0.02 + 2 s.
    expect(seen!.queueWaitSeconds).toBeCloseTo(6.07 + 2.02, 6);
    expect(seen!.fetchBacklogSeconds).toBe(0);
  });
});

describe('routing knobs', () => {
  it('cache-blind even-load loses reuse with per-node caches; cache-affinity keeps it', () => {
    const roles: Role[] = ['P', 'P', 'D'];
    const local = { pool: 'local' as const, prefillRouting: 'predicted-ttft' as const };
    const even = run({ requests: branchRequests, roles, mechanics: local, policy: once({ routing: { prefill: 'even-load' } }) });
    const affinity = run({ requests: branchRequests, roles, mechanics: local, policy: once({ routing: { prefill: 'cache-affinity' } }) });
    expect(even.sim.buildCtx().mechanics.routing.prefill).toBe('even-load');
    expect(affinity.sim.buildCtx().mechanics.routing.prefill).toBe('cache-affinity');
    expect(even.result.metrics.requestsCompleted).toBe(32);
    expect(affinity.result.metrics.requestsCompleted).toBe(32);
    expect(affinity.result.metrics.lostKvReusePct).toBe(0);
    expect(even.result.metrics.lostKvReusePct).toBeGreaterThan(10);
  });

  it('a routing change applies to requests routed after the plan, not before', () => {
    // The plan applies at t = 5, before any request: the same run as starting with even-load.
    const planned = run({ requests: branchRequests, roles: ['P', 'P', 'D'], mechanics: { pool: 'local' }, policy: once({ routing: { prefill: 'even-load' } }) });
    const fixed = run({ requests: branchRequests, roles: ['P', 'P', 'D'], mechanics: { pool: 'local', prefillRouting: 'even-load' } });
    expect(planned.result.metrics).toEqual(fixed.result.metrics);
  });

  it('the predicted-TTFT weights are read per request: a huge duplicate-copy penalty waits for the node holding the prefix', () => {
    // Node 0 holds branch 0's prefix and is busy with a long prompt when the follow-up comes:
    // by default the follow-up fetches the prefix to idle node 1; with the penalty it waits on node 0.
    const requests: ScriptedRequest[] = [
      { at: 10, branch: 0, input: 40 * 512, output: 1, blocks: range(0, 40) },
      { at: 20, branch: 1, input: 60_000, output: 1, blocks: range(5000, 117) },
      { at: 21, branch: 0, input: 44 * 512, output: 1, blocks: range(0, 44) },
    ];
    const base = run({ requests, roles: ['P', 'P', 'D'] });
    const sticky = run({ requests, roles: ['P', 'P', 'D'], policy: once({ routing: { duplicateCopyPenalty: 1e3 } }) });
    expect(sticky.sim.buildCtx().mechanics.routing.duplicateCopyPenalty).toBe(1e3);
    const bigDone = base.source.completed.get(1)!;
    expect(base.source.completed.get(2)!).toBeLessThan(bigDone);
    expect(sticky.source.completed.get(2)!).toBeGreaterThan(bigDone);
  });
});

describe('transitions.maxConcurrent', () => {
  const flipTwo = (ctx: PolicyCtx): Role[] => ctx.plan.roles.map((r, i) => (i < 2 ? 'D' : r));
  const requests = range(0, 4).map((i) => ({ at: i * 0.5, input: 20_000, output: 50, blocks: range(i * 1000, 39) }));

  it('maxConcurrent 1 restarts one node at a time, in node order', () => {
    const { result } = run({ requests, roles: ['P', 'P', 'P', 'D'], mechanics: { transition: 'restart' }, hw: { restart: 100 }, policy: once({ transitions: { maxConcurrent: 1 } }, flipTwo) });
    const [a, b] = result.transitions;
    expect(result.transitions.map((t) => t.node)).toEqual([0, 1]);
    expect(b!.start).toBeGreaterThanOrEqual(a!.end!);
    expect(result.transitions.every((t) => t.end !== null)).toBe(true);
  });

  it('without it both start together', () => {
    const { result } = run({ requests, roles: ['P', 'P', 'P', 'D'], mechanics: { transition: 'restart' }, hw: { restart: 100 }, policy: once({}, flipTwo) });
    expect(result.transitions.map((t) => t.node)).toEqual([0, 1]);
    expect(result.transitions[1]!.start).toBe(result.transitions[0]!.start);
  });
});

describe('eviction.order', () => {
  it('a change of order changes what the next eviction takes', () => {
    // Block 1 counted and oldest, block 2 uncounted and newer: refcount evicts 2, lru evicts 1.
    for (const [from, to, kept] of [
      ['lru', 'refcount', 1],
      ['refcount', 'lru', 2],
    ] as const) {
      const kv = directory({ l1: 2, eviction: from });
      kv.admitPrefill(0, 7, [1], 0);
      kv.admitPrefill(0, -1, [2], 1);
      kv.setEviction(to);
      kv.checkInvariants();
      kv.admitPrefill(0, -1, [3], 2);
      expect(kv.has(kept, 0, 1)).toBe(true);
      expect(kv.has(kept === 1 ? 2 : 1, 0, 1)).toBe(false);
      kv.checkInvariants();
    }
  });

  it('round trips keep exact LRU order among many blocks', () => {
    const kv = directory({ l1: 50, eviction: 'refcount' });
    for (let i = 0; i < 40; i++) kv.admitPrefill(0, i % 3 === 0 ? 100 + i : -1, [i], i);
    kv.setEviction('lru');
    kv.checkInvariants();
    kv.setEviction('refcount');
    kv.checkInvariants();
    kv.setEviction('lru');
    // Under lru the 15 oldest go first, counted or not.
    for (let i = 40; i < 65; i++) kv.admitPrefill(0, -1, [i], i);
    expect(range(0, 15).filter((b) => kv.has(b, 0, 1))).toEqual([]);
    expect(range(15, 50).every((b) => kv.has(b, 0, 1))).toBe(true);
    kv.checkInvariants();
  });

  it("protectWaiting 'host': counted KV goes by plain LRU on the GPU but is still kept longest in host memory", () => {
    const kv = directory({ l1: 2, l2: 2, eviction: 'refcount' });
    kv.admitPrefill(0, 7, [1], 0); // counted (its branch waits on a tool), old
    kv.admitPrefill(0, -1, [2], 1); // uncounted, newer
    kv.setEviction('refcount', false);
    kv.checkInvariants();
    kv.admitPrefill(0, -1, [3], 2);
    expect([kv.has(1, 0, 1), kv.has(2, 0, 1)]).toEqual([false, true]);
    expect([kv.has(1, 0, 2), kv.has(2, 0, 2)]).toEqual([true, false]);
    kv.checkInvariants();
    kv.setEviction('refcount', true);
    kv.checkInvariants();
  });

  it('a plan sets it in the simulator', () => {
    const { sim } = run({ requests: branchRequests.slice(0, 4), roles: ['P', 'D'], policy: once({ eviction: { order: 'lru' } }) });
    expect(sim.buildCtx().mechanics.eviction).toEqual({ order: 'lru', protectWaiting: 'both' });
    const host = run({ requests: branchRequests.slice(0, 4), roles: ['P', 'D'], policy: once({ eviction: { protectWaiting: 'host' } }) });
    expect(host.sim.buildCtx().mechanics.eviction).toEqual({ order: 'refcount', protectWaiting: 'host' });
  });
});

describe('batching.maxPrefillTokens', () => {
  it('caps the prefill batch: two prompts that fit one batch run in two', () => {
    // A long prompt keeps the node busy while the two short ones queue behind it.
    const requests = [
      { at: 9, input: 16_000, output: 1, blocks: range(500, 31) },
      { at: 10, input: 4000, output: 1, blocks: range(0, 7) },
      { at: 10, input: 4000, output: 1, blocks: range(100, 7) },
    ];
    const together = run({ requests, roles: ['P', 'D'], policy: once({}) });
    const apart = run({ requests, roles: ['P', 'D'], policy: once({ batching: { maxPrefillTokens: 4096 } }) });
    const t = (r: typeof together) => [r.source.completed.get(1)!, r.source.completed.get(2)!];
    // One batch: both finish together; two batches: the second waits for the first.
    expect(t(together)[0]).toBe(t(together)[1]);
    expect(t(apart)[1]! - t(apart)[0]!).toBeGreaterThan(0.3);
  });
});

describe('plans without knobs', () => {
  it('a plan that sets every knob to its value in force gives the same run as one that sets none', () => {
    const requests = range(0, 60).map((i) => ({ at: i * 0.9, branch: i % 5, input: 6000 + (i % 7) * 900, output: 20 + (i % 11) * 10, blocks: range((i % 5) * 1000, 11 + (i % 7)) }));
    const same = { routing: { prefill: 'predicted-ttft', decode: 'least-loaded', fetchExcessWeight: 1, duplicateCopyPenalty: 2e-5, affinityBalanceAbs: 32, affinityBalanceRel: 1.1, affinityMatch: 0.5 }, eviction: { order: 'refcount', protectWaiting: 'both' }, batching: {}, transitions: {} } as const;
    const flip = (ctx: PolicyCtx): Role[] => ['P', 'D', 'D', ...ctx.plan.roles.slice(3)];
    const v1 = run({ requests, roles: ['P', 'P', 'D', 'D'], policy: once({}, flip) });
    const v2 = run({ requests, roles: ['P', 'P', 'D', 'D'], policy: once(same, flip) });
    expect(v2.result.metrics).toEqual(v1.result.metrics);
    expect(v2.result.transitions).toEqual(v1.result.transitions);
  });
});

describe('invalid knob values', () => {
  const nodes = [{ state: 'active' as const }, { state: 'active' as const }];
  const limits = { minPrefill: 1, minDecode: 1 };
  const check = (plan: unknown) => validatePlan(plan, { nodes, limits });
  it.each([
    [{ routing: { prefill: 'fastest' } }, 'plan.routing.prefill'],
    [{ routing: { decode: 'random' } }, 'plan.routing.decode'],
    [{ routing: { affinityMatch: 2 } }, 'plan.routing.affinityMatch'],
    [{ routing: { fetchExcessWeight: -1 } }, 'plan.routing.fetchExcessWeight'],
    [{ eviction: { order: 'fifo' } }, 'plan.eviction.order'],
    [{ eviction: { protectWaiting: 'gpu' } }, 'plan.eviction.protectWaiting'],
    [{ transitions: { maxConcurrent: 0 } }, 'plan.transitions.maxConcurrent'],
    [{ transitions: { maxConcurrent: -2 } }, 'plan.transitions.maxConcurrent'],
    [{ transitions: { maxConcurrent: 1.5 } }, 'plan.transitions.maxConcurrent'],
    [{ batching: { maxPrefillTokens: 0 } }, 'plan.batching.maxPrefillTokens'],
    [{ routing: { speed: 1 } }, 'plan.routing'],
  ])('%j is rejected naming %s', (knobs, field) => {
    const r = check({ roles: ['P', 'D'], ...knobs });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message.startsWith(`${field}:`) || r.message.startsWith(`${field} `) || r.message.startsWith(field)).toBe(true);
  });

  it('the simulator records an invalid-plan failure and keeps the settings', () => {
    const bad = once({ routing: { prefill: 'fastest' } } as unknown as Knobs);
    const { result, sim } = run({ requests: branchRequests.slice(0, 4), roles: ['P', 'D'], policy: bad });
    const f = result.policy.failures.find((x) => x.kind === 'invalid-plan');
    expect(f?.firstMessage).toMatch(/^plan\.routing\.prefill: /);
    expect(sim.buildCtx().mechanics.routing.prefill).toBe('predicted-ttft');
  });
});

describe('conservation across knob changes', () => {
  it('every request completes exactly once while plans flip roles, routing, eviction and pacing', () => {
    const requests: ScriptedRequest[] = range(0, 300).map((i) => ({
      at: i * 0.7,
      branch: i % 17,
      input: 2000 + ((i * 7919) % 30000),
      output: 1 + ((i * 104729) % 600),
      blocks: range((i % 17) * 100_000, Math.floor((2000 + ((i * 7919) % 30000)) / 512)),
    }));
    const prefill = ['cache-affinity', 'even-load', 'session', 'dynamo-kv', 'predicted-ttft'] as const;
    let flips = 0;
    const policy = {
      shouldReschedule: (ctx: PolicyCtx) => Math.floor(ctx.now / 30) > flips,
      schedule: (ctx: PolicyCtx) => {
        flips = Math.floor(ctx.now / 30);
        const roles = [...ctx.plan.roles];
        const i = flips % roles.length;
        roles[i] = roles[i] === 'P' ? 'D' : 'P';
        if (!roles.includes('P')) roles[0] = 'P';
        if (!roles.includes('D')) roles[1] = 'D';
        return {
          roles,
          routing: { prefill: prefill[flips % prefill.length]!, decode: flips % 2 ? ('round-robin' as const) : ('least-loaded' as const) },
          eviction: { order: flips % 3 ? ('lru' as const) : ('refcount' as const), protectWaiting: flips % 4 < 2 ? ('both' as const) : ('host' as const) },
          transitions: { maxConcurrent: 1 + (flips % 2) },
          batching: { maxPrefillTokens: flips % 2 ? 8192 : 16_384 },
        };
      },
    };
    const { result, source } = run({ requests, roles: ['P', 'P', 'D', 'D', 'D'], mechanics: { pool: 'local' }, hw: { l1Blocks: 300, l2Blocks: 900 }, policy, horizon: 4000 });
    const counts = new Map<number, number>();
    for (const id of source.completions) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(range(0, 300));
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(result.metrics.requestsInFlight).toBe(0);
    expect(result.policy.plansApplied).toBeGreaterThan(5);
    expect(result.policy.failures).toEqual([]);
    expect(result.kv.l1Evictions).toBeGreaterThan(0);
  });
});

describe('maxConcurrent and failures', () => {
  it('a failure that leaves no prefill node flips a decode node at once, even while another node switches under maxConcurrent 1', () => {
    // Two long prompts (10 s each) keep both prefill nodes busy from t = 1; at t = 5 node 1 starts to
    // leave prefill (it drains its batch until about t = 11) with maxConcurrent 1; at t = 8 node 0,
    // the last prefill node, fails. The idle decode node 2 must take prefill at t = 8, not after node 1.
    const requests = [0, 1].map((i) => ({ at: 1, input: 100_000, output: 1, blocks: range(i * 1000, 195) }));
    let done = false;
    const policy = {
      shouldReschedule: (ctx: PolicyCtx) => !done && ctx.now >= 5,
      schedule: (ctx: PolicyCtx) => {
        done = true;
        return { roles: ctx.plan.roles.map((r, i) => (i === 1 ? 'D' : r)) as Role[], transitions: { maxConcurrent: 1 } };
      },
    };
    const sim = new Simulator({
      hardware: range(0, 4).map(() => fakeHardware()),
      roles: ['P', 'P', 'D', 'D'],
      mechanics: MECHANICS_PRESETS['evolving-infra'],
      source: scriptedSource(requests),
      seed: 1,
      warmupSeconds: 0,
      scoredSeconds: 3600,
      learning: 'given',
      policy: plainPolicy(policy),
      membership: [{ node: 0, at: 8, event: 'down' }],
    });
    const result = sim.run();
    const leaving = result.transitions.find((t) => t.node === 1)!;
    expect(leaving.end!).toBeGreaterThan(10);
    const donor = result.transitions.find((t) => t.node === 2 && t.to === 'P');
    expect(donor, JSON.stringify(result.transitions)).toBeDefined();
    expect(donor!.start).toBe(8);
    expect(result.metrics.requestsCompleted).toBe(2);
  });
});
