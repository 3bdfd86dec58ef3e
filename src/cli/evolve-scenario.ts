import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../common/errors.js';
import type { Snapshot } from '../evaluate/index.js';
import type { EvolveConfig } from '../evolve/engine/index.js';
import { loadScenario, scenarioSnapshot, withRunOverrides } from '../scenario/index.js';
import { parseMechanics } from '../sim/index.js';
import { nodeKindsSpec, scenarioWithFlags, type FlagMap } from './scenario-option.js';

/** evolve's flags for the run-config fields (its scored minutes are the window). */
const EVOLVE_FLAG_MAP: FlagMap = {
  workload: 'workload',
  agents: 'agents',
  nodes: 'nodes',
  nodeKinds: 'nodeKind',
  split: 'split',
  mechanics: 'mechanics',
  warmupMinutes: 'warmupMin',
  minutes: 'windowMin',
  seed: 'seed',
};

/** A shipped scenario stays a name; a file is stored by its absolute path, so --resume works from anywhere. */
function storedRef(ref: string): string {
  return ref.endsWith('.json') || ref.includes('/') || ref.includes('\\') ? resolve(ref) : ref;
}

/** `evolve --scenario`: the config fields the scenario resolves to, and its snapshot. */
export function scenarioConfig(ref: string, cmd: Command, flags: Record<string, unknown>): { fields: Partial<EvolveConfig>; snapshot: Snapshot } {
  const { scenario, mechanicsSpec } = scenarioWithFlags(ref, cmd, flags, EVOLVE_FLAG_MAP);
  const run = scenario.run;
  return {
    fields: {
      workload: run.workload,
      agents: run.agents,
      windowMinutes: run.minutes,
      warmupMinutes: run.warmupMinutes,
      nodes: run.nodes,
      nodeKinds: nodeKindsSpec(scenario),
      split: run.split,
      mechanics: mechanicsSpec,
      seed: run.seed,
      scenario: { ref: storedRef(ref), contentHash: scenario.contentHash },
    },
    snapshot: scenarioSnapshot(scenario),
  };
}

/** A resumed run on a scenario: the same file (checked by its hash) with the stored values. */
export function scenarioRunSnapshot(config: EvolveConfig): Snapshot {
  const stored = config.scenario!;
  const loaded = loadScenario(stored.ref);
  if (loaded.contentHash !== stored.contentHash) {
    throw new InputError('the scenario changed since this run started (content hash differs); start a new run', { file: stored.ref, field: 'scenario.contentHash' });
  }
  return scenarioSnapshot(
    withRunOverrides(loaded, {
      workload: config.workload,
      agents: config.agents,
      nodes: config.nodes,
      nodeKinds: config.nodeKinds,
      split: config.split,
      mechanics: parseMechanics(config.mechanics),
      warmupMinutes: config.warmupMinutes,
      minutes: config.windowMinutes,
      seed: config.seed,
    }),
  );
}
