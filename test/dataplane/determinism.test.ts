import { afterEach, describe, expect, it } from 'vitest';
import { stagePolicy } from '../../src/dataplane/index.js';
import { parseSchedCost, sandboxHook } from '../../src/evaluate/index.js';
import { PolicySandbox } from '../../src/sandbox/index.js';
import { createSimulator } from '../../src/sim/index.js';
import { failsFrom, flipper, makePlane, seed, smallScenario, stepUntil, tempDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function run() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const plane = makePlane(smallScenario({ minutes: 5 }), seed('greedy'), { stagingDir: t.staging, rollbackAfter: 2 });
  try {
    stepUntil(plane, 60);
    stagePolicy(t.staging, { name: 'flipper', code: flipper(30), candidateId: 1 });
    stepUntil(plane, 150);
    stagePolicy(t.staging, { name: 'breaks', code: failsFrom(170), candidateId: 2 });
    stepUntil(plane, 240);
    const snapshot = plane.snapshot({ windowMinutes: 2, warmupMinutes: 1 });
    while (plane.step()) {
      // to the end
    }
    const { sim, segments, events, requests } = plane.finish();
    return JSON.stringify({ sim, segments, events, requests, snapshot });
  } finally {
    plane.dispose();
  }
}

describe('determinism', () => {
  it('the same scenario, policies and staging times give the same run and the same snapshot', () => {
    const a = run();
    const b = run();
    expect(a).toBe(b);
    expect(a).toContain('"type":"rollback"');
  });
});

describe('transparency', () => {
  it('serving through the data plane computes what the simulator computes alone', () => {
    const scenario = smallScenario({ minutes: 4, warmupMinutes: 1 });
    const sandbox = PolicySandbox.create(seed('greedy').code, { seed: scenario.seed, name: 'greedy', cpuLimitMs: 1000 });
    let alone: string;
    try {
      alone = JSON.stringify(createSimulator(scenario, { policy: sandboxHook(sandbox, parseSchedCost('zero')) }).run());
    } finally {
      sandbox.dispose();
    }
    const plane = makePlane(scenario, seed('greedy'));
    try {
      while (plane.step()) {
        // to the end
      }
      expect(JSON.stringify(plane.finish().sim)).toBe(alone);
    } finally {
      plane.dispose();
    }
  });
});
