import { describe, expect, it } from 'vitest';
import { replaySnapshot } from '../../src/evaluate/index.js';
import { listScenarios, loadScenario, scenarioSnapshot, withRunOverrides, type LoadedScenario } from '../../src/scenario/index.js';
import { expandNodeKinds, type MembershipChange } from '../../src/sim/index.js';

const SHIPPED = ['bursty-cc', 'hetero', 'open-loop-cc', 'restart-cc', 'shifting', 'spot-osworld', 'steady-cc'];

/** The scenario's membership timeline moved so that its first change comes `at` seconds into a short run. */
function movedTo(membership: readonly MembershipChange[], at: number): MembershipChange[] {
  if (membership.length === 0) return [];
  // Durations shrink 10x so that nodes also come back within the short run.
  return membership.map((m) => ({ ...m, at: Math.round(at + (m.at - membership[0]!.at) / 10) }));
}

function short(s: LoadedScenario): LoadedScenario {
  return withRunOverrides(s, { warmupMinutes: 1, minutes: 3, membership: movedTo(s.run.membership, 90) });
}

describe('shipped scenarios', () => {
  it('are the seven of the suite, sorted', () => {
    expect(listScenarios()).toEqual(SHIPPED);
  });

  for (const name of SHIPPED) {
    it(`${name} parses, carries its note, and replays a short version without losing a request`, () => {
      const s = loadScenario(name);
      expect(s.name).toBe(name);
      expect(s.spec.note.length).toBeGreaterThan(40);
      expect(s.contentHash).toMatch(/^[0-9a-f]{64}$/);
      expect(loadScenario(name).contentHash).toBe(s.contentHash);
      const snapshot = scenarioSnapshot(short(s));
      const requests = snapshot.trace.events.filter((e) => e.type === 'request').length;
      expect(requests).toBeGreaterThan(20);
      const { sim, drained } = replaySnapshot(snapshot, undefined, 40);
      expect(drained).toBe(true);
      expect(sim.metrics.requestsArrived).toBe(requests);
      expect(sim.metrics.requestsInFlight).toBe(0);
      expect(sim.metrics.requestsCompleted).toBeGreaterThan(0);
      // spot-osworld: nodes really went down during the short run (the split then counts fewer nodes).
      const sizes = sim.splitTimeline.map((e) => /^(\d+)P(\d+)D$/.exec(e.split)!.slice(1).reduce((a, b) => a + Number(b), 0));
      if (s.run.membership.length > 0) expect(Math.min(...sizes)).toBeLessThan(s.run.nodes);
      else expect(Math.min(...sizes)).toBe(s.run.nodes);
    });
  }

  it('resolve to the runs the issue describes', () => {
    const steady = loadScenario('steady-cc').run;
    expect([steady.workload, steady.agents, steady.nodes, steady.warmupMinutes, steady.minutes]).toEqual(['cc', 126, 9, 30, 60]);
    const shifting = loadScenario('shifting').run;
    expect(shifting.warmupMinutes + shifting.minutes).toBe(180);
    const restart = loadScenario('restart-cc').run;
    expect([restart.agents, restart.split, restart.mechanics.transition]).toEqual([90, '6P3D', 'restart']);
    const open = loadScenario('open-loop-cc').run;
    expect(open.arrivalRate! * 60).toBeCloseTo(1, 9);
    expect(open.agents).toBeUndefined();
    const hetero = loadScenario('hetero').run;
    const kinds = expandNodeKinds(hetero.nodeKinds, hetero.nodes);
    expect(new Set(kinds).size).toBe(2);
    expect(loadScenario('bursty-cc').run.bursts?.periodSeconds).toBeGreaterThan(0);
  });

  it('spot-osworld loses 1 to 3 nodes at a time for 5 to 30 minutes, several times', () => {
    const m = loadScenario('spot-osworld').run.membership;
    const downs = m.filter((c) => c.event === 'down');
    const lossTimes = new Set(downs.map((c) => c.at));
    expect(lossTimes.size).toBeGreaterThanOrEqual(4);
    for (const t of lossTimes) expect(downs.filter((c) => c.at === t).length).toBeLessThanOrEqual(3);
    for (const d of downs) {
      const up = m.find((c) => c.node === d.node && c.event === 'up' && c.at > d.at)!;
      expect(up.at - d.at).toBeGreaterThanOrEqual(5 * 60);
      expect(up.at - d.at).toBeLessThanOrEqual(30 * 60);
    }
  });

  it('a scenario snapshot follows the seed it is given, and the scenario default otherwise', () => {
    const s = withRunOverrides(loadScenario('steady-cc'), { warmupMinutes: 0.5, minutes: 1, agents: 10 });
    const a = scenarioSnapshot(s);
    const b = scenarioSnapshot(s, { seed: 2 });
    expect(a.seed).toBe(1);
    expect(b.seed).toBe(2);
    expect(b.label).toContain('seed 2');
    expect(JSON.stringify(b.trace.events)).not.toBe(JSON.stringify(a.trace.events));
    expect(JSON.stringify(scenarioSnapshot(s).trace.events)).toBe(JSON.stringify(a.trace.events));
  });
});
