import type { Command } from 'commander';
import { checkMembership, expandNodeKinds, parseMechanics, parseSplit, type Mechanics, type MembershipChange, type Role } from '../sim/index.js';
import { floatOption, intOption } from './options.js';
import { parseMembership } from './membership-option.js';

/** Flags shared by every command that runs the cluster (simulate, replay, compare). */
export interface ClusterFlags {
  workload: string;
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
    .requiredOption('--workload <preset|trace.jsonl>', 'workload preset (cc, putnam, osworld, shifting) or a trace file')
    .option('--agents <n>', "closed-loop concurrent agents (default: the preset's)", intOption('--agents', 1, 100_000))
    .option('--nodes <n>', 'nodes in the cluster', intOption('--nodes', 2, 31), 9)
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
