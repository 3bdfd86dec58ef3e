import { parseMechanics, parseScenario, parseSplit, runScenario, type Scenario, type SimMetrics } from '../sim/index.js';
import { loadModel, loadNodeKind } from '../sim/profiles/index.js';
import { loadWorkloadPreset } from '../workload/index.js';
import { learningOf, type Learning } from './learning.js';
import type { RunSpec } from './plan.js';

/** What a calibration run hands back (structured-cloneable: it crosses the worker boundary). */
export interface RunOutcome {
  key: string;
  metrics: SimMetrics;
  learning: Learning | null;
  simSeconds: number;
  events: number;
  wallSeconds: number;
}

/**
 * Run one static-split simulation. Nothing here is specific to calibration:
 * it is the scenario `autopoiesis simulate` would run with the same flags.
 */
export function runOne(spec: RunSpec): RunOutcome {
  const scenario = scenarioOf(spec);
  const started = performance.now();
  const result = runScenario(scenario);
  return {
    key: spec.key,
    metrics: result.metrics,
    learning: learningOf(result),
    simSeconds: result.simSeconds,
    events: result.events,
    wallSeconds: (performance.now() - started) / 1000,
  };
}

/** Check a run's inputs (workload preset, split, mechanics, node kind) without running it; throws InputError. */
export function checkRun(spec: RunSpec): void {
  const scenario = scenarioOf(spec);
  parseSplit(scenario.split, scenario.nodes);
  const preset = loadWorkloadPreset(scenario.workload);
  loadModel(preset.model);
  loadNodeKind(spec.nodeKind);
}

function scenarioOf(spec: RunSpec): Scenario {
  return parseScenario({
    workload: spec.workload,
    agents: spec.agents,
    nodes: spec.nodes,
    nodeKinds: spec.nodeKind,
    split: spec.split,
    mechanics: parseMechanics(spec.mechanics),
    warmupMinutes: spec.warmupMinutes,
    minutes: spec.minutes,
    seed: spec.seed,
  });
}
