import type { Command } from 'commander';
import { checkMembership, expandNodeKinds, MAX_NODES, parseMechanics, parseSplit, type Mechanics, type MembershipChange, type Role } from '../sim/index.js';
import { floatOption, intOption } from './options.js';
import { parseMembership } from './membership-option.js';
import { buildSnapshot, type Snapshot } from '../evaluate/index.js';
import { scenarioSnapshot } from '../scenario/index.js';
import { CLUSTER_FLAG_MAP, requireWorkloadOrScenario, scenarioWithFlags, SCENARIO_FLAGS, SCENARIO_HELP } from './scenario-option.js';

/** Flags shared by every command that runs the cluster (simulate, replay, compare). */
export interface ClusterFlags {
  /** Required unless --scenario is given. */
  workload?: string;
  scenario?: string;
  agents?: number;
  nodes: number;
  nodeKind: string;
  split: string;
  mechanics: string;
  warmupMin: number;
  minutes: number;
  seed: number;
  elastic?: string;
}

export function addClusterOptions(cmd: Command, defaults: { warmupMin: number; minutes: number; split?: string }): Command {
  return cmd
    .option(SCENARIO_FLAGS, SCENARIO_HELP)
    .option('--workload <preset|trace.jsonl>', 'workload preset (cc, putnam, osworld, shifting) or a trace file (required unless --scenario)')
    .option('--agents <n>', "closed-loop concurrent agents (default: the preset's)", intOption('--agents', 1, 100_000))
    .option('--nodes <n>', 'nodes in the cluster', intOption('--nodes', 2, MAX_NODES), 9)
    .option('--node-kind <kind[,kind...]>', 'node kind for all nodes, or one per node (gb300, gb200, h200, or a profile .json)', 'gb300')
    .option('--split <nPmD>', 'initial prefill/decode split, e.g. 4P5D (must add up to --nodes)', defaults.split ?? '4P5D')
    .option('--mechanics <preset[,key=value...]>', 'evolving-infra | sglang-pd | dynamo, optionally with overrides such as fetch=async', 'evolving-infra')
    .option('--warmup-min <m>', 'minutes of warm-up excluded from scoring', floatOption('--warmup-min', 0), defaults.warmupMin)
    .option('--minutes <m>', 'scored minutes after the warm-up', floatOption('--minutes', 1e-6), defaults.minutes)
    .option('--seed <n>', 'seed of every random draw', intOption('--seed', 0, 2 ** 31 - 1), 1)
    .option('--elastic <changes>', 'nodes leaving and joining: "NODE:down@SECONDS,NODE:up@SECONDS,..."');
}

export interface ResolvedCluster {
  roles: Role[];
  nodeKinds: string[];
  mechanics: Mechanics;
  membership: MembershipChange[];
}

export function resolveCluster(flags: ClusterFlags): ResolvedCluster {
  const membership = flags.elastic ? parseMembership(flags.elastic) : [];
  checkMembership(membership, flags.nodes, '--elastic');
  return {
    roles: parseSplit(flags.split, flags.nodes),
    nodeKinds: expandNodeKinds(flags.nodeKind, flags.nodes, '--node-kind'),
    mechanics: parseMechanics(flags.mechanics),
    membership,
  };
}

/** What replay and compare evaluate: the scenario's snapshot with the flags given beside it, or one from the flags alone. */
export function snapshotFromFlags(flags: ClusterFlags, cmd: Command): Snapshot {
  if (flags.scenario) return scenarioSnapshot(scenarioWithFlags(flags.scenario, cmd, { ...flags }, CLUSTER_FLAG_MAP).scenario);
  requireWorkloadOrScenario(flags);
  const cluster = resolveCluster(flags);
  return buildSnapshot({ ...cluster, workload: flags.workload!, agents: flags.agents, warmupMinutes: flags.warmupMin, minutes: flags.minutes, seed: flags.seed });
}
