import type { Command } from 'commander';
import { InputError, UsageError } from '../common/errors.js';
import { loadScenario, withRunOverrides, type LoadedScenario } from '../scenario/index.js';
import { checkMembership, expandNodeKinds, parseMechanics, parseSplit, type RunConfigInput } from '../sim/index.js';
import { parseMembership } from './membership-option.js';
import { isGiven } from './option-source.js';

export const SCENARIO_FLAGS = '--scenario <name|file.json>';
export const SCENARIO_HELP =
  'a scenario (a name under evaluator/scenarios, or a .json file): workload, cluster, mechanics, split, membership, minutes and seed; flags given beside it override its values';

/** The run-config field each command flag (commander attribute name) overrides. */
export type FlagMap = Partial<Record<'workload' | 'agents' | 'arrivalRate' | 'nodes' | 'nodeKinds' | 'split' | 'mechanics' | 'warmupMinutes' | 'minutes' | 'seed' | 'membership' | 'timeScale', string>>;

/** The flags of simulate, replay and compare (addClusterOptions). */
export const CLUSTER_FLAG_MAP: FlagMap = {
  workload: 'workload',
  agents: 'agents',
  arrivalRate: 'arrivalRate',
  nodes: 'nodes',
  nodeKinds: 'nodeKind',
  split: 'split',
  mechanics: 'mechanics',
  warmupMinutes: 'warmupMin',
  minutes: 'minutes',
  seed: 'seed',
  membership: 'elastic',
  timeScale: 'timeScale',
};

export interface ScenarioRun {
  scenario: LoadedScenario;
  /** The mechanics as a preset string (evolve and serve store strings): the flag's, or the file's. */
  mechanicsSpec: string;
}

/**
 * Load `--scenario` and apply the flags given on the command line or in the
 * run config file (isGiven); flags left at their defaults do not override the file.
 */
export function scenarioWithFlags(ref: string, cmd: Command, flags: Record<string, unknown>, map: FlagMap): ScenarioRun {
  const loaded = loadScenario(ref);
  const given = (field: keyof FlagMap): boolean => map[field] !== undefined && isGiven(cmd, map[field]!);
  const value = (field: keyof FlagMap): unknown => flags[map[field]!];
  const overrides: Partial<RunConfigInput> = {};
  for (const field of ['workload', 'agents', 'arrivalRate', 'nodes', 'split', 'warmupMinutes', 'minutes', 'seed', 'timeScale'] as const) {
    if (given(field)) (overrides as Record<string, unknown>)[field] = value(field);
  }
  const nodes = (overrides.nodes as number | undefined) ?? loaded.run.nodes;
  const flag = (field: keyof FlagMap): string => `--${map[field]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  if (given('nodeKinds')) overrides.nodeKinds = expandNodeKinds(String(value('nodeKinds')), nodes, flag('nodeKinds'));
  else if (nodes !== loaded.run.nodes) {
    const kinds = new Set(expandNodeKinds(loaded.run.nodeKinds, loaded.run.nodes));
    if (kinds.size > 1) throw new UsageError(`${flag('nodes')} ${nodes}: scenario ${loaded.name} has several node kinds; give ${flag('nodeKinds')} too`);
    overrides.nodeKinds = expandNodeKinds([...kinds][0]!, nodes);
  }
  const mechanicsSpec = given('mechanics') ? String(value('mechanics')) : loaded.spec.mechanics;
  if (given('mechanics')) overrides.mechanics = parseMechanics(mechanicsSpec);
  if (given('membership')) {
    const membership = parseMembership(String(value('membership')));
    checkMembership(membership, nodes, flag('membership'));
    overrides.membership = membership;
  }
  if (given('split') || given('nodes')) {
    try {
      parseSplit((overrides.split as string | undefined) ?? loaded.run.split, nodes);
    } catch (error) {
      if (error instanceof InputError) throw new UsageError(`${error.message.replace(/^field split: /, '')} (--scenario ${ref} with ${given('split') ? flag('split') : flag('nodes')})`);
      throw error;
    }
  }
  try {
    return { scenario: withRunOverrides(loaded, overrides), mechanicsSpec };
  } catch (error) {
    if (error instanceof InputError) throw new UsageError(`${error.message} (--scenario ${ref} with the flags given)`);
    throw error;
  }
}

/** The node kinds of a run as one comma-separated string (evolve and serve store strings). */
export function nodeKindsSpec(s: LoadedScenario): string {
  return expandNodeKinds(s.run.nodeKinds, s.run.nodes).join(',');
}

/** Neither a workload nor a scenario: nothing to run. */
export function requireWorkloadOrScenario(flags: { workload?: string; scenario?: string }): void {
  if (flags.workload === undefined && flags.scenario === undefined) throw new UsageError('give --workload or --scenario');
}
