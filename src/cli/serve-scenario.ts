import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isGiven } from './option-source.js';
import type { ServeSettingsInput } from './serve-settings.js';
import { nodeKindsSpec, scenarioWithFlags, type FlagMap } from './scenario-option.js';

/** serve's flags for the run-config fields; serve has no warm-up, it serves warm-up + scored minutes. */
const SERVE_FLAG_MAP: FlagMap = {
  workload: 'workload',
  agents: 'agents',
  nodes: 'nodes',
  nodeKinds: 'nodeKind',
  split: 'split',
  mechanics: 'mechanics',
  seed: 'seed',
};

/** `serve --scenario`: the settings the scenario resolves to, with the flags given beside it applied. */
export function scenarioServeFields(ref: string, cmd: Command, flags: Record<string, unknown>): Partial<ServeSettingsInput> {
  const { scenario, mechanicsSpec } = scenarioWithFlags(ref, cmd, flags, SERVE_FLAG_MAP);
  const run = scenario.run;
  const isPath = ref.endsWith('.json') || ref.includes('/') || ref.includes('\\');
  return {
    workload: run.workload,
    agents: run.agents,
    arrivalRate: run.arrivalRate,
    bursts: run.bursts,
    membership: run.membership,
    nodes: run.nodes,
    nodeKinds: nodeKindsSpec(scenario),
    split: run.split,
    mechanics: mechanicsSpec,
    seed: run.seed,
    ...(isGiven(cmd, 'durationMin') ? {} : { durationMinutes: run.warmupMinutes + run.minutes }),
    scenario: { ref: isPath ? resolve(ref) : ref, contentHash: scenario.contentHash },
  };
}
