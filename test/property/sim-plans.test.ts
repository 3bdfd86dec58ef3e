import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCluster, MECHANICS_PRESETS, Simulator, type MembershipChange, type PolicyHook, type Role } from '../../src/sim/index.js';
import { createPresetSource, loadWorkloadPreset, type WorkloadSource } from '../../src/workload/index.js';

/**
 * Whatever a policy answers (random plans, plans of the wrong length or
 * leaving a phase empty, failures, any CPU charge) and however nodes leave
 * and join, the simulator neither throws nor loses a request: every request
 * that arrived is completed exactly once or still in the cluster at the end.
 * The simulator is advanced in steps and may be stopped early, as the data
 * plane drives it. A small cluster and five simulated minutes keep it quick.
 */
interface Answer {
  should: boolean | 'fail';
  roles: Role[] | 'fail';
  cpuSeconds: number;
}

const role = fc.constantFrom<Role>('P', 'D');
const answer = (nodes: number): fc.Arbitrary<Answer> =>
  fc.record({
    should: fc.oneof(fc.boolean(), fc.constant('fail' as const)),
    // Mostly plans for every node; sometimes too short or too long (the sandbox would refuse those; the simulator must cope).
    roles: fc.oneof({ weight: 6, arbitrary: fc.array(role, { minLength: nodes, maxLength: nodes }) }, { weight: 1, arbitrary: fc.array(role, { maxLength: nodes + 1 }) }, { weight: 1, arbitrary: fc.constant('fail' as const) }),
    cpuSeconds: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 3, noNaN: true })),
  });

const membership = (nodes: number): fc.Arbitrary<MembershipChange[]> =>
  fc.array(fc.record({ node: fc.nat({ max: nodes - 1 }), at: fc.double({ min: 0, max: 300, noNaN: true }), event: fc.constantFrom<'down' | 'up'>('down', 'up') }), { maxLength: 8 });

const scenario = fc.integer({ min: 2, max: 5 }).chain((nodes) =>
  fc.record({
    nodes: fc.constant(nodes),
    roles: fc.array(role, { minLength: nodes, maxLength: nodes }),
    mechanics: fc.constantFrom(
      MECHANICS_PRESETS['evolving-infra'],
      MECHANICS_PRESETS['sglang-pd'],
      MECHANICS_PRESETS['dynamo'],
      { ...MECHANICS_PRESETS['evolving-infra'], transition: 'restart' as const },
      { ...MECHANICS_PRESETS['evolving-infra'], prefillRouting: 'session' as const, fetch: 'at-start' as const },
    ),
    agents: fc.integer({ min: 1, max: 8 }),
    seed: fc.nat({ max: 1000 }),
    script: fc.array(answer(nodes), { minLength: 1, maxLength: 12 }),
    membership: membership(nodes),
    /** Advance in steps of this many seconds (as the data plane does) and maybe stop before the end. */
    step: fc.constantFrom(1, 5, 7.5, 60, Infinity),
    stopAt: fc.option(fc.double({ min: 0, max: 300, noNaN: true }), { nil: undefined }),
  }),
);

/** The policy plays its script in a loop, one answer per call. */
function scripted(script: readonly Answer[]): PolicyHook {
  let calls = 0;
  const next = () => script[calls++ % script.length]!;
  return {
    shouldReschedule: () => {
      const a = next();
      return a.should === 'fail' ? { ok: false, failure: { kind: 'throw', message: 'scripted failure' }, cpuSeconds: a.cpuSeconds } : { ok: true, value: a.should, cpuSeconds: a.cpuSeconds };
    },
    schedule: () => {
      const a = next();
      return a.roles === 'fail' ? { ok: false, failure: { kind: 'invalid-plan', message: 'scripted failure' }, cpuSeconds: a.cpuSeconds } : { ok: true, value: { roles: [...a.roles] }, cpuSeconds: a.cpuSeconds };
    },
  };
}

/** Counts what the source emits and what the simulator reports completed. */
function counted(inner: WorkloadSource) {
  const emitted = new Set<number>();
  const completed = new Set<number>();
  const problems: string[] = [];
  const note = (events: ReturnType<WorkloadSource['start']>) => {
    for (const e of events) if (e.kind === 'request') emitted.add(e.request.id);
    return events;
  };
  const source: WorkloadSource = {
    name: inner.name,
    model: inner.model,
    start: () => note(inner.start()),
    onWake: (token, now) => note(inner.onWake(token, now)),
    onComplete: (id, now) => {
      if (!emitted.has(id)) problems.push(`request ${id} completed but was never emitted`);
      if (completed.has(id)) problems.push(`request ${id} completed twice`);
      completed.add(id);
      return note(inner.onComplete(id, now));
    },
  };
  return { source, emitted, completed, problems };
}

describe('random plans and membership timelines (property)', () => {
  it('never crash the simulator or lose a request', () => {
    let served = 0;
    fc.assert(
      fc.property(scenario, (s) => {
        const c = counted(createPresetSource(loadWorkloadPreset('cc'), { seed: s.seed, agents: s.agents }));
        const { hardware, policyModel } = buildCluster(Array<string>(s.nodes).fill('gb300'), c.source.model, s.seed);
        const sim = new Simulator({ hardware, roles: s.roles, mechanics: s.mechanics, source: c.source, seed: s.seed, warmupSeconds: 60, scoredSeconds: 240, membership: s.membership, policy: scripted(s.script), policyModel });
        const end = s.stopAt ?? Infinity;
        if (s.step === Infinity) sim.advanceTo(end);
        else for (let t = s.step; sim.advanceTo(Math.min(t, end)) && t < end; t += s.step);
        const result = sim.finish();
        expect(c.problems).toEqual([]);
        const m = result.metrics;
        expect(m.requestsArrived).toBeLessThanOrEqual(c.emitted.size);
        expect(m.requestsArrived).toBe(c.completed.size + m.requestsInFlight);
        served += c.completed.size;
      }),
      { seed: 20261201, numRuns: 60 },
    );
    // Not vacuous: the runs served requests.
    expect(served).toBeGreaterThan(0);
  });
});
