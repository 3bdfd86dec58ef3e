import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, parseMechanics, parseScenario, plainPolicy, rolesFor, type PolicyCtx, type ScenarioInput, type SimResult } from '../../src/sim/index.js';
import { createPresetSource, loadWorkloadPreset, type WorkloadSource } from '../../src/workload/index.js';
import { PolicySandbox } from '../../src/sandbox/index.js';
import { sandboxHook } from '../../src/evaluate/index.js';
import { stdlib } from '../../src/policy/index.js';
import { seedSource, type SeedName } from './fixtures.js';

/*
 * The planner study's behaviours (docs/planner-study.md) on shortened live
 * runs: each seed in its sandbox, consulted every 5 s by the simulator, with
 * zero scheduling cost so that runs are deterministic. Each run simulates at
 * most 40 minutes (a few seconds of CPU).
 */

const open: PolicySandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.dispose();
});

function run(seed: SeedName, input: ScenarioInput, source?: WorkloadSource): SimResult {
  const sandbox = PolicySandbox.create(seedSource(seed), { name: seed, seed: 1 });
  open.push(sandbox);
  return createSimulator(parseScenario(input), { policy: sandboxHook(sandbox, { kind: 'zero' }), source }).run();
}

const prefillOf = (split: string): number => Number(/^(\d+)P/.exec(split)![1]);

/** The split in force at each time, as prefill counts over [from, to): time-weighted mean, min and max. */
function prefillOver(r: SimResult, from: number, to: number): { mean: number; min: number; max: number } {
  const tl = r.splitTimeline;
  let weighted = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < tl.length; i++) {
    const start = Math.max(from, tl[i]!.at);
    const end = Math.min(to, i + 1 < tl.length ? tl[i + 1]!.at : to);
    if (end <= start) continue;
    const p = prefillOf(tl[i]!.split);
    weighted += p * (end - start);
    min = Math.min(min, p);
    max = Math.max(max, p);
  }
  return { mean: weighted / (to - from), min, max };
}

const BURSTY_CC: ScenarioInput = {
  workload: 'cc',
  agents: 90,
  split: '6P3D',
  bursts: { periodSeconds: 240, jitterSeconds: 5, probability: 0.06, count: { mean: 3, cv: 0.4 } },
  warmupMinutes: 10,
  minutes: 15,
  seed: 1,
};

describe('arrow-like (published: 34 transitions in the hour on cc 90, 6P3D -> 8P1D)', () => {
  it('flaps on a bursty cc run and leans prefill, where the reference planner settles', () => {
    const arrow = run('arrow-like', BURSTY_CC);
    const reference = run('evolving-infra', BURSTY_CC);
    const scored: [number, number] = [600, 1500];
    // Many moves in 15 scored minutes; the reference makes at most a couple.
    expect(arrow.metrics.transitions.count).toBeGreaterThanOrEqual(10);
    expect(reference.metrics.transitions.count).toBeLessThanOrEqual(2);
    const a = prefillOver(arrow, ...scored);
    const ref = prefillOver(reference, ...scored);
    // It reaches 8P1D and spends the run above the starting 6P3D on average, well above the reference.
    expect(a.max).toBe(8);
    expect(a.mean).toBeGreaterThan(6.5);
    expect(a.mean).toBeGreaterThan(ref.mean + 2);
  });
});

describe('dynamo-like (published: slid from 6P3D to 2P7D on cc 90 under restart mechanics)', () => {
  it('moves toward decode, one restart at a time, when the prefill backlog shows up as decode load', () => {
    const r = run('dynamo-like', { workload: 'cc', agents: 90, split: '6P3D', mechanics: parseMechanics('dynamo'), warmupMinutes: 2, minutes: 33, seed: 1 });
    // One node per decision, every decision from prefill to decode, each after the last restart plus an adjustment interval.
    expect(r.policy.plans.length).toBeGreaterThanOrEqual(3);
    for (const plan of r.policy.plans) expect(plan.changedNodes.length).toBe(1);
    expect(r.transitions.length).toBe(r.policy.plans.length);
    for (const t of r.transitions) expect([t.from, t.to]).toEqual(['P', 'D']);
    for (let i = 1; i < r.transitions.length; i++) {
      const previous = r.transitions[i - 1]!;
      expect(previous.end).not.toBeNull();
      expect(r.transitions[i]!.start - previous.end!).toBeGreaterThanOrEqual(180);
    }
    expect(prefillOf(r.finalSplit)).toBeLessThanOrEqual(4);
  });
});

describe('evolving-infra (published: +28% over the best static split on a shifting workload)', () => {
  it('goes decode-heavy on putnam, then toward prefill once the workload turns prefill-heavy', () => {
    const preset = structuredClone(loadWorkloadPreset('shifting'));
    // A 40-minute shifting run: putnam for 15 minutes, then osworld.
    preset.phases = [
      { startSeconds: 0, mix: { putnam: 1 } },
      { startSeconds: 900, mix: { osworld: 1 } },
    ];
    const input: ScenarioInput = { workload: 'shifting', split: '4P5D', warmupMinutes: 0, minutes: 40, seed: 1 };
    const source = createPresetSource(preset, { seed: 1 });
    const r = run('evolving-infra', input, source);
    expect(prefillOver(r, 300, 900).max).toBeLessThanOrEqual(3);
    expect(prefillOver(r, 2100, 2400).min).toBeGreaterThanOrEqual(7);
    // Rare, well-founded switches: far fewer plans than monitoring steps.
    expect(r.policy.plans.length).toBeLessThanOrEqual(8);
  });
});

describe('the stdlib predictor on a prefill-bound window', () => {
  it('sees that more prefill serves more, which the decode-queue-only rule could not', () => {
    let ctx: PolicyCtx | null = null;
    const hook = plainPolicy({
      shouldReschedule: (c) => {
        if (c.now === 1200) ctx = structuredClone(c);
        return false;
      },
      schedule: (c) => ({ roles: c.plan.roles }),
    });
    // osworld-heavy traffic on a decode-heavy 3P6D: prefill is the bottleneck, decode starves.
    const scenario = parseScenario({ workload: 'osworld', split: '3P6D', warmupMinutes: 0, minutes: 20, seed: 1 });
    createSimulator(scenario, { policy: hook }).run();
    expect(ctx).not.toBeNull();
    const c = ctx as unknown as PolicyCtx;
    const w = stdlib.meanWorkload(c)!;
    expect(w.prefillQueue).toBeGreaterThan(w.decodeQueue);
    const at = (p: number, workload = w): number => stdlib.predictThroughput(c, rolesFor(p, 9 - p), workload);
    expect(at(8)).toBeGreaterThan(1.5 * at(3));
    // Without the prefill backlog the decode batch is the starved one, and 8P1D looks no better than 3P6D.
    const starved = { ...w, prefillQueue: 0 };
    expect(at(8, starved)).toBeLessThan(at(8));
    expect(at(8, starved)).toBeLessThan(1.5 * at(3, starved));
  });
});
