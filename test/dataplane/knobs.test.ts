import { afterEach, describe, expect, it } from 'vitest';
import { stagePolicy } from '../../src/dataplane/index.js';
import { replaySnapshot } from '../../src/evaluate/index.js';
import type { CtxMechanics } from '../../src/policy/index.js';
import { MECHANICS_PRESETS, plainPolicy } from '../../src/sim/index.js';
import { expectEveryRequestAccounted, flipper, makePlane, runWith, seed, smallScenario, stepUntil, tempDir, tracked } from './helpers.js';

/**
 * Contract v2 in the data plane: plans that change routing, eviction and
 * transition pacing, and hot swaps between such policies and v1 ones, lose
 * and duplicate no request.
 */

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** Every `period` s: one node flips role, and the routers, eviction order, pacing and batch limit move to the next setting. */
function knobFlipper(period: number): string {
  return `
const PREFILL = ['cache-affinity', 'even-load', 'session', 'dynamo-kv', 'predicted-ttft'];
let step = 0;
function shouldReschedule(ctx) { return Math.floor(ctx.now / ${period}) !== Math.floor((ctx.now - 5) / ${period}); }
function schedule(ctx) {
  step++;
  const roles = ctx.plan.roles.slice();
  roles[1] = roles[1] === 'P' ? 'D' : 'P';
  return {
    roles,
    routing: { prefill: PREFILL[step % PREFILL.length], decode: step % 2 ? 'round-robin' : 'least-loaded', affinityMatch: 0.3 + 0.1 * (step % 3) },
    eviction: { order: step % 3 ? 'lru' : 'refcount', protectWaiting: step % 4 < 2 ? 'both' : 'host' },
    transitions: { maxConcurrent: 1 + (step % 2) },
    batching: { maxPrefillTokens: step % 2 ? 8192 : 32768 },
  };
}`;
}

describe('knob changes and hot swaps', () => {
  it('lose and duplicate no request', () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const dir = t.staging;
    // Per-node caches (sglang-pd): routing decides what is reused, so routing changes matter.
    const scenario = smallScenario({ minutes: 8, mechanics: { ...MECHANICS_PRESETS['sglang-pd'] } });
    const source = tracked(scenario);
    const plane = makePlane(scenario, seed('static-4p5d'), { stagingDir: dir, source });
    try {
      const result = runWith(plane, [
        [40, () => stagePolicy(dir, { name: 'knobs', code: knobFlipper(20), candidateId: 1 })],
        [160, () => stagePolicy(dir, { name: 'v1-flipper', code: flipper(30), candidateId: 2 })],
        [260, () => stagePolicy(dir, { name: 'knobs-2', code: knobFlipper(15), candidateId: 3 })],
      ]);
      expect(result.events.map((e) => `${e.type}:${e.name}`)).toEqual(['deploy:knobs', 'deploy:v1-flipper', 'deploy:knobs-2']);
      expectEveryRequestAccounted(source, result);
      // The knob plans were accepted and applied (none failed), and roles did move.
      expect(result.sim.policy.failures).toEqual([]);
      expect(result.sim.policy.plansApplied).toBeGreaterThan(10);
      expect(result.sim.transitions.length).toBeGreaterThan(5);
    } finally {
      plane.dispose();
    }
  });
});

/** Sets the v2 knobs once, at its first reschedule, and keeps them (roles unchanged). */
const SETS_KNOBS_ONCE = `
let done = false;
function shouldReschedule(ctx) { return !done && ctx.now >= 30; }
function schedule(ctx) {
  done = true;
  return {
    roles: ctx.plan.roles.slice(),
    routing: { prefill: 'session', decode: 'round-robin', affinityMatch: 0.3 },
    eviction: { order: 'lru', protectWaiting: 'host' },
    transitions: { maxConcurrent: 2 },
    batching: { maxPrefillTokens: 8192 },
  };
}`;

describe('snapshots carry the knobs in force', () => {
  /** ctx.mechanics as a replay of the snapshot shows it to the policy at its first call. */
  function mechanicsAtReplayStart(snapshot: ReturnType<ReturnType<typeof makePlane>['snapshot']>): CtxMechanics {
    let first: CtxMechanics | undefined;
    replaySnapshot(snapshot, plainPolicy({ shouldReschedule: (ctx) => ((first ??= structuredClone(ctx.mechanics)), false), schedule: (ctx) => ({ roles: ctx.plan.roles }) }), 4);
    return first!;
  }

  it('a replay of a window starts with the routing, eviction, pacing and batching a deployed policy had set', () => {
    const plane = makePlane(smallScenario({ minutes: 6 }), { name: 'knobs-once', code: SETS_KNOBS_ONCE, candidateId: null });
    try {
      stepUntil(plane, 300);
      const inForce = plane.records().at(-1)!.mechanics;
      expect(inForce.routing.prefill).toBe('session');
      const snapshot = plane.snapshot({ windowMinutes: 2, warmupMinutes: 1 });
      expect(snapshot.knobs).toEqual({
        routing: { prefill: 'session', decode: 'round-robin', affinityMatch: 0.3 },
        eviction: { order: 'lru', protectWaiting: 'host' },
        transitions: { maxConcurrent: 2 },
        batching: { maxPrefillTokens: 8192 },
      });
      expect(mechanicsAtReplayStart(snapshot)).toEqual(inForce);
    } finally {
      plane.dispose();
    }
  });

  it('a window of a policy that never set a knob has none, and replays at the mechanics of the run', () => {
    const plane = makePlane(smallScenario({ minutes: 6 }), { name: 'flipper', code: flipper(60), candidateId: null });
    try {
      stepUntil(plane, 300);
      const snapshot = plane.snapshot({ windowMinutes: 2, warmupMinutes: 1 });
      expect('knobs' in snapshot).toBe(false);
      expect(mechanicsAtReplayStart(snapshot)).toEqual(plane.records().at(-1)!.mechanics);
    } finally {
      plane.dispose();
    }
  });
});
