import { describe, expect, it } from 'vitest';
import { computeBreakdown } from '../../src/evaluate/breakdown.js';
import { createSimulator, MECHANICS_PRESETS, parseScenario, Simulator, type Mechanics, type PolicyCtx, type PolicyHook, type Role } from '../../src/sim/index.js';
import { fakeHardware, range, scriptedSource, type ScriptedRequest } from './helpers.js';

// Regression tests of issue 13's correctness bugs, each through the public API.

const evolving: Mechanics = { ...MECHANICS_PRESETS['evolving-infra'], prefillRouting: 'even-load' };

/** A policy hook whose calls cost `cpuSeconds` each (the delay before its plan applies). */
function costlyPolicy(cpuSeconds: number, fns: { should: (ctx: PolicyCtx) => boolean; plan: (ctx: PolicyCtx) => Role[] }): PolicyHook {
  return {
    shouldReschedule: (ctx) => ({ ok: true, value: fns.should(ctx), cpuSeconds }),
    schedule: (ctx) => ({ ok: true, value: { roles: fns.plan(ctx) }, cpuSeconds }),
  };
}

function given(opts: {
  requests: ScriptedRequest[];
  roles: Role[];
  policy?: PolicyHook;
  membership?: { node: number; at: number; event: 'down' | 'up' }[];
  horizon?: number;
  mechanics?: Partial<Mechanics>;
}) {
  const source = scriptedSource(opts.requests);
  const sim = new Simulator({
    hardware: opts.roles.map(() => fakeHardware()),
    roles: opts.roles,
    mechanics: { ...evolving, ...opts.mechanics },
    source,
    seed: 1,
    warmupSeconds: 0,
    scoredSeconds: opts.horizon ?? 600,
    policy: opts.policy,
    membership: opts.membership,
    learning: 'given',
  });
  return { result: sim.run(), source };
}

describe('restart transitions after the learning phase', () => {
  it('a node restarts only once it runs nothing of either phase: nothing writes into its cleared KV', () => {
    // dynamo mechanics (restart transitions). The policy flips every role at
    // once; role changes wait for the end of the learning phase, when every
    // node still finishes work of the phase it no longer serves.
    const scenario = parseScenario({ workload: 'cc', agents: 126, warmupMinutes: 2, minutes: 2, seed: 1, mechanics: MECHANICS_PRESETS.dynamo });
    let flipped = false;
    const seen = { restarting: 0, holding: [] as string[] };
    const policy = costlyPolicy(0, {
      should: (ctx) => {
        for (const n of ctx.nodes) {
          if (n.state !== 'restarting') continue;
          seen.restarting++;
          // Restarting empties the node's KV; what it holds then was written while it restarted.
          if (n.kv.l1Used + n.kv.l2Used > 0) seen.holding.push(`node ${n.id} at ${ctx.now}s holds ${n.kv.l1Used + n.kv.l2Used} tokens`);
        }
        return !flipped;
      },
      plan: (ctx) => {
        flipped = true;
        return ctx.plan.roles.map((r) => (r === 'P' ? 'D' : 'P'));
      },
    });
    const result = createSimulator(scenario, { policy }).run();
    expect(result.transitions.filter((t) => t.kind === 'restart').length).toBe(9);
    expect(seen.restarting).toBeGreaterThan(0);
    expect(seen.holding).toEqual([]);
  });
});

describe('a prefill node that fails', () => {
  it('takes the KV of its requests waiting for a decode node with it: they prefill again', () => {
    // Node 1 (the only decode node) fails first: the request prefilled on node 0
    // waits for a decode node. Then node 0 fails, and its KV is gone; node 1
    // returns at 10 s, node 0 at 15 s. The request cannot decode from node 0's
    // KV: it must prefill again once a prefill node is back.
    const requests: ScriptedRequest[] = [{ at: 1, input: 4000, output: 10, blocks: range(0, 7) }];
    const membership = [
      { node: 1, at: 0.5, event: 'down' as const },
      { node: 0, at: 5, event: 'down' as const },
      { node: 1, at: 10, event: 'up' as const },
      { node: 0, at: 15, event: 'up' as const },
    ];
    const { result, source } = given({ requests, roles: ['P', 'D'], membership });
    expect(source.completions).toEqual([0]);
    // Prefill again at 15 s (0.01 + 4000 * 1e-4 = 0.41 s), then 9 decode iterations of 0.02 s.
    expect(source.completed.get(0)!).toBeCloseTo(15 + 0.41 + 9 * 0.02, 6);
    expect(result.metrics.requestsInFlight).toBe(0);
  });
});

describe('a prefill node that restarts', () => {
  it('takes the KV of its requests waiting for a decode node with it: they prefill again', () => {
    // restart mechanics, 700 s per restart. Node 2 (decode) fails at 0.5 s: node 0
    // is flipped to decode and restarts until 700.5 s. The request prefills on
    // node 1 and waits for a decode node. At 5 s a plan sends node 1 to decode
    // and node 0 back to prefill: node 1 restarts (its KV is cleared), so the
    // request must prefill again, on node 0 once it is back as a prefill node
    // (restarting again from 700.5 s to 1400.5 s), then decode on node 1.
    const requests: ScriptedRequest[] = [{ at: 1, input: 4000, output: 10, blocks: range(0, 7) }];
    let decided = false;
    const policy = costlyPolicy(0, {
      should: (ctx) => ctx.now >= 2 && !decided,
      plan: () => {
        decided = true;
        return ['P', 'D', 'D'];
      },
    });
    const { result, source } = given({
      requests,
      roles: ['P', 'P', 'D'],
      policy,
      membership: [{ node: 2, at: 0.5, event: 'down' }],
      mechanics: { transition: 'restart' },
      horizon: 3000,
    });
    expect(result.policy.plansApplied).toBe(1);
    expect(source.completions).toEqual([0]);
    expect(source.completed.get(0)!).toBeCloseTo(1400.5 + 0.41 + 9 * 0.02, 6);
  });
});

describe('plan validation', () => {
  it('a plan that takes effect is checked by validatePlan, the rules the sandbox applies', () => {
    const requests: ScriptedRequest[] = range(0, 5).map((i) => ({ at: i, input: 2000, output: 5, blocks: range(i * 10, 3) }));
    const once = (roles: Role[]) => {
      let decided = false;
      return costlyPolicy(0, {
        should: (ctx) => ctx.now >= 1 && !decided,
        plan: () => {
          decided = true;
          return roles;
        },
      });
    };
    const short = given({ requests, roles: ['P', 'D', 'D'], policy: once(['P', 'D']) }).result.policy;
    expect(short.failures).toEqual([{ kind: 'invalid-plan', count: 1, firstMessage: 'plan.roles has 2 entries but ctx.nodes has 3; give one role per node, by position' }]);
    const noPrefill = given({ requests, roles: ['P', 'D', 'D'], policy: once(['D', 'D', 'D']) }).result.policy;
    expect(noPrefill.failures[0]!.firstMessage).toBe('plan leaves 0 prefill node(s) among the 3 up nodes; at least 1 needed');
    // With one node up no split has both phases: only the shape is checked, and the plan applies.
    const lonely = given({ requests, roles: ['P', 'D'], policy: once(['D', 'P']), membership: [{ node: 1, at: 0.5, event: 'down' }] }).result;
    expect(lonely.policy.plansApplied).toBe(1);
    expect(lonely.transitions.map((t) => [t.node, t.from, t.to])).toEqual([[0, 'P', 'D']]);
  });
});

describe('stale time', () => {
  it('is not charged for a plan that is rejected when it would take effect', () => {
    // The plan (node 0 to decode, node 1 to prefill) is decided at 5 s and takes
    // 1 s to compute; node 1 fails at 5.5 s, so at 6 s it would leave no prefill
    // node among those up, and is rejected. Serving never ran under an intended
    // plan other than the one in force.
    const requests: ScriptedRequest[] = range(0, 20).map((i) => ({ at: i, input: 2000, output: 5, blocks: range(i * 10, 3) }));
    let decided = false;
    const policy = costlyPolicy(0.5, {
      should: (ctx) => ctx.now >= 5 && !decided,
      plan: () => {
        decided = true;
        return ['D', 'P', 'D'];
      },
    });
    const { result } = given({ requests, roles: ['P', 'P', 'D'], policy, membership: [{ node: 1, at: 5.5, event: 'down' }] });
    expect(result.policy.failures.map((f) => f.kind)).toEqual(['invalid-plan']);
    expect(result.policy.plansApplied).toBe(0);
    expect(computeBreakdown(result, 0, 3, result.policy.scoredCpuSeconds).breakdown.staleSeconds).toBe(0);
  });

  it('is charged for a plan that applies: each changed node, from decision to effect', () => {
    const requests: ScriptedRequest[] = range(0, 20).map((i) => ({ at: i, input: 2000, output: 5, blocks: range(i * 10, 3) }));
    let decided = false;
    const policy = costlyPolicy(0.5, {
      should: (ctx) => ctx.now >= 5 && !decided,
      plan: () => {
        decided = true;
        return ['D', 'P', 'D'];
      },
    });
    const { result } = given({ requests, roles: ['P', 'P', 'D'], policy });
    expect(result.policy.plansApplied).toBe(1);
    // 1 s (two calls of 0.5 s) times the one node the plan changes, over 3 nodes.
    expect(computeBreakdown(result, 0, 3, result.policy.scoredCpuSeconds).breakdown.staleSeconds).toBeCloseTo(1 / 3, 9);
  });
});
