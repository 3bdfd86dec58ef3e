import { afterEach, describe, expect, it } from 'vitest';
import { sampleCtx, type Ctx } from '../../src/policy/index.js';
import { PolicySandbox } from '../../src/sandbox/index.js';
import { seedSource, type SeedName } from './fixtures.js';

/** The seeds that use the contract-v2 knobs: what they set, and when. */

const open: PolicySandbox[] = [];
function load(name: SeedName): PolicySandbox {
  const sandbox = PolicySandbox.create(seedSource(name), { name, seed: 7 });
  open.push(sandbox);
  return sandbox;
}
afterEach(() => {
  for (const s of open.splice(0)) s.dispose();
});

function answer(sandbox: PolicySandbox, ctx: Ctx) {
  const s = sandbox.shouldReschedule(ctx);
  if (!s.ok) throw new Error(s.failure.message);
  if (!s.value) return null;
  const p = sandbox.schedule(ctx);
  if (!p.ok) throw new Error(p.failure.message);
  return p.plan;
}

/** Prefill queue waits of the four prefill nodes of the sample ctx. */
function withWaits(ctx: Ctx, waits: number[]): Ctx {
  let k = 0;
  for (const n of ctx.nodes) if (n.role === 'P') n.prefill = { queueWaitSeconds: waits[k++]!, fetchBacklogSeconds: 0 };
  return ctx;
}

describe('affinity-switch', () => {
  it('moves to cache-affinity while prefill waits are balanced, keeping the roles', () => {
    const ctx = withWaits(sampleCtx(), [0.4, 0.5, 0.6, 0.5]);
    const plan = answer(load('affinity-switch'), ctx);
    expect(plan?.routing).toEqual({ prefill: 'cache-affinity' });
    expect(plan?.roles).toEqual(ctx.plan.roles);
  });

  it('moves back to predicted-ttft when one node queues far longer', () => {
    const ctx = withWaits(sampleCtx(), [0.4, 9, 0.6, 0.5]);
    ctx.mechanics.routing.prefill = 'cache-affinity';
    expect(answer(load('affinity-switch'), ctx)?.routing).toEqual({ prefill: 'predicted-ttft' });
  });

  it('leaves a router that fits alone', () => {
    const ctx = withWaits(sampleCtx(), [0.4, 9, 0.6, 0.5]);
    expect(answer(load('affinity-switch'), ctx)).toBeNull();
  });
});

describe('paced-restart', () => {
  it('under restart mechanics sets maxConcurrent 1 at its first call', () => {
    const ctx = sampleCtx();
    ctx.mechanics.transition = 'restart';
    expect(answer(load('paced-restart'), ctx)?.transitions).toEqual({ maxConcurrent: 1 });
  });

  it('with symmetric switches lets every node switch at once', () => {
    const ctx = sampleCtx();
    expect(answer(load('paced-restart'), ctx)?.transitions).toEqual({ maxConcurrent: ctx.nodes.length });
  });

  it('once paced, waits while a node restarts', () => {
    const ctx = sampleCtx();
    ctx.mechanics.transition = 'restart';
    ctx.mechanics.transitions.maxConcurrent = 1;
    ctx.nodes[0]!.state = 'restarting';
    ctx.nodes[0]!.targetRole = 'D';
    ctx.lastRescheduleAt = null;
    expect(answer(load('paced-restart'), ctx)).toBeNull();
  });
});

describe('the structural mutator on knob values', () => {
  it('moves a knob value of a v2 seed to a sibling value of the same knob', async () => {
    const { swapKnobValue, knobValueSites } = await import('../../src/evolve/mutators/structural/swap-knob-value.js');
    const { parsePolicy } = await import('../../src/evolve/mutators/policy-shape.js');
    const { Rng } = await import('../../src/common/rng.js');
    const code = seedSource('affinity-switch');
    const program = parsePolicy(code);
    const sites = knobValueSites({ program });
    expect(sites.map((s) => s.value).sort()).toEqual(['cache-affinity', 'cache-affinity', 'predicted-ttft']);
    const seen = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const edit = swapKnobValue.apply({ code, program, inspirations: [] }, new Rng(seed))!;
      const m = /^swap knob value '([a-z-]+)' -> '([a-z-]+)' /.exec(edit.description)!;
      expect(m, edit.description).not.toBeNull();
      expect(m[2]).not.toBe(m[1]);
      expect(['predicted-ttft', 'cache-affinity', 'dynamo-kv', 'even-load', 'session']).toContain(m[2]);
      expect(edit.code).toContain(`'${m[2]}'`);
      seen.add(m[2]!);
    }
    expect(seen.size).toBeGreaterThan(2);
  });

  it('finds nothing to swap in a v1 seed, whose mutations are then as before', async () => {
    const { knobValueSites } = await import('../../src/evolve/mutators/structural/swap-knob-value.js');
    const { parsePolicy } = await import('../../src/evolve/mutators/policy-shape.js');
    for (const name of ['evolving-infra', 'greedy', 'paced-restart'] as const) expect(knobValueSites({ program: parsePolicy(seedSource(name)) })).toEqual([]);
  });
});
