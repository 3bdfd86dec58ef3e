import { existsSync } from 'node:fs';
import { z } from 'zod';
import { parseOrThrow } from '../common/validate.js';
import { burstSchema, createPresetSource, createTraceSource, loadWorkloadPreset, readTrace } from '../workload/index.js';
import type { WorkloadSource } from '../workload/types.js';
import { buildCluster } from './cluster-setup.js';
import { checkMembership, expandNodeKinds } from './cluster-spec.js';
import { MAX_NODES } from './kv/index.js';
import { MechanicsSchema, MECHANICS_PRESETS } from './mechanics.js';
import type { PolicyHook } from './policy-hook.js';
import { Simulator, type SimResult } from './simulator.js';
import { parseSplit } from './split.js';

/**
 * Everything that defines a simulation run; `--json` output echoes it as `config`.
 * Also exported as `RunConfigSchema`/`RunConfig`: a scenario *file*
 * (evaluator/scenarios, src/scenario) is a different, larger thing that
 * resolves to one of these.
 */
export const ScenarioSchema = z.strictObject({
  /** A preset name (evaluator/workloads) or a trace file (.jsonl). */
  workload: z.string().min(1),
  /** Closed-loop agents (presets; default the preset's own). */
  agents: z.number().int().positive().optional(),
  /** Open-loop agent arrivals per second (presets), instead of a closed loop. */
  arrivalRate: z.number().positive().optional(),
  /** Presets: synchronised sub-agent bursts (workload/bursts.ts); absent = the preset's own (usually off). */
  bursts: burstSchema.optional(),
  /** Presets: coefficient of variation of every kind's per-call output length (workload/output-spread.ts); absent = the preset's own. */
  outputCv: z.number().nonnegative().finite().optional(),
  nodes: z.number().int().min(2).max(MAX_NODES).default(9),
  /** Node kind per node, or one kind for all. */
  nodeKinds: z.union([z.string(), z.array(z.string()).min(1)]).default('gb300'),
  split: z.string().default('4P5D'),
  mechanics: MechanicsSchema.default(MECHANICS_PRESETS['evolving-infra']),
  warmupMinutes: z.number().min(0).default(30),
  minutes: z.number().positive().default(60),
  seed: z.number().int().min(0).default(1),
  monitorStepSeconds: z.number().positive().default(5),
  sliceSeconds: z.number().positive().default(60),
  /** Trace replays: multiply recorded times (0.5 = twice as fast). */
  timeScale: z.number().positive().default(1),
  /** Elastic scenarios: nodes leaving and joining. */
  membership: z.array(z.strictObject({ node: z.number().int().min(0), at: z.number().min(0), event: z.enum(['down', 'up']) })).default([]),
});
export type ScenarioInput = z.input<typeof ScenarioSchema>;
export type Scenario = z.output<typeof ScenarioSchema>;
/** The same schema under the name that does not clash with scenario files. */
export const RunConfigSchema = ScenarioSchema;
export type RunConfigInput = ScenarioInput;
export type RunConfig = Scenario;

export function parseScenario(input: unknown): Scenario {
  const scenario = parseOrThrow(ScenarioSchema, input);
  checkMembership(scenario.membership, scenario.nodes);
  expandNodeKinds(scenario.nodeKinds, scenario.nodes);
  return scenario;
}

/** A workload source for a preset name or a trace file path. */
export function openWorkload(
  scenario: Pick<Scenario, 'workload' | 'agents' | 'arrivalRate' | 'seed' | 'timeScale'> & { bursts?: Scenario['bursts']; outputCv?: Scenario['outputCv'] },
): WorkloadSource {
  const spec = scenario.workload;
  if (spec.endsWith('.jsonl') || (spec.includes('/') && existsSync(spec) && !spec.endsWith('.json'))) {
    return createTraceSource(readTrace(spec), { timeScale: scenario.timeScale });
  }
  const preset = loadWorkloadPreset(spec);
  return createPresetSource(preset, {
    seed: scenario.seed,
    agents: scenario.agents,
    arrivalRate: scenario.arrivalRate,
    ...(scenario.bursts ? { bursts: scenario.bursts } : {}),
    ...(scenario.outputCv !== undefined ? { outputCv: scenario.outputCv } : {}),
  });
}

export interface RunOptions {
  policy?: PolicyHook;
  onProgress?: (simSeconds: number) => void;
  /** Use this source instead of opening `scenario.workload` (replays of snapshots). */
  source?: WorkloadSource;
}

/** Set up the cluster for a scenario and run it to the end. */
export function runScenario(scenario: Scenario, options: RunOptions = {}): SimResult {
  return createSimulator(scenario, options).run();
}

/** Set up the cluster for a scenario; the caller drives it (`advanceTo`, `finish`) or runs it. */
export function createSimulator(scenario: Scenario, options: RunOptions = {}): Simulator {
  const roles = parseSplit(scenario.split, scenario.nodes);
  const source = options.source ?? openWorkload(scenario);
  const kinds = expandNodeKinds(scenario.nodeKinds, scenario.nodes);
  const { hardware, policyModel } = buildCluster(kinds, source.model, scenario.seed);
  return new Simulator({
    hardware,
    roles,
    mechanics: scenario.mechanics,
    source,
    seed: scenario.seed,
    warmupSeconds: scenario.warmupMinutes * 60,
    scoredSeconds: scenario.minutes * 60,
    sliceSeconds: scenario.sliceSeconds,
    monitorStepSeconds: scenario.monitorStepSeconds,
    membership: scenario.membership,
    policy: options.policy,
    policyModel,
    onProgress: options.onProgress,
  });
}
