import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError, UsageError } from '../common/errors.js';
import type { Snapshot } from '../evaluate/index.js';
import { checkValidateSeeds, windowOf, type EvolveConfig, type SnapshotPlan } from '../evolve/engine/index.js';
import { loadScenario, scenarioSnapshot, withRunOverrides, type LoadedScenario } from '../scenario/index.js';
import { parseMechanics } from '../sim/index.js';
import { isGiven } from './option-source.js';
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

/** With several scenarios, only these flags apply to each (the others would have to fit every cluster at once). */
const SHARED_FLAGS = new Set(['warmupMin', 'windowMin', 'seed']);

/** A shipped scenario stays a name; a file is stored by its absolute path, so --resume works from anywhere. */
function storedRef(ref: string): string {
  return ref.endsWith('.json') || ref.includes('/') || ref.includes('\\') ? resolve(ref) : ref;
}

/** `--scenario a,b,...`: the names or files, in order. */
export function scenarioRefs(text: string): string[] {
  const refs = text.split(',').map((r) => r.trim());
  if (refs.some((r) => r === '')) throw new UsageError(`--scenario '${text}': an empty name in the list`);
  if (new Set(refs).size !== refs.length) throw new UsageError(`--scenario '${text}': a scenario is listed twice`);
  return refs;
}

/**
 * `evolve --scenario a[,b,...]`: the config fields the first scenario
 * resolves to (flags applied), the more scenarios to store, and every
 * training and validation snapshot: `windows` consecutive windows of each
 * scenario at its seed, and the same windows at each validation seed.
 */
export function scenarioConfig(
  text: string,
  cmd: Command,
  flags: Record<string, unknown>,
  more: { windows: number; validateSeeds: number[] },
): { fields: Partial<EvolveConfig>; plan: SnapshotPlan } {
  const refs = scenarioRefs(text);
  if (refs.length > 1) {
    const other = Object.values(EVOLVE_FLAG_MAP).find((f) => !SHARED_FLAGS.has(f!) && isGiven(cmd, f!));
    if (other) throw new UsageError(`--${other.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} cannot be given with several scenarios (only --warmup-min, --window-min and --seed apply to each)`);
  }
  const loaded = refs.map((ref) => scenarioWithFlags(ref, cmd, flags, EVOLVE_FLAG_MAP));
  const first = loaded[0]!;
  const run = first.scenario.run;
  const scenarios = loaded.map((l) => l.scenario);
  return {
    fields: {
      workload: run.workload,
      agents: run.agents,
      windowMinutes: run.minutes,
      warmupMinutes: run.warmupMinutes,
      nodes: run.nodes,
      nodeKinds: nodeKindsSpec(first.scenario),
      split: run.split,
      mechanics: first.mechanicsSpec,
      seed: run.seed,
      scenario: { ref: storedRef(refs[0]!), contentHash: first.scenario.contentHash },
      moreScenarios: scenarios.slice(1).map((s, i) => ({ ref: storedRef(refs[i + 1]!), contentHash: s.contentHash, seed: s.run.seed, warmupMinutes: s.run.warmupMinutes, minutes: s.run.minutes })),
      windows: more.windows,
      validateSeeds: more.validateSeeds,
    },
    plan: planOf(scenarios, more.windows, more.validateSeeds),
  };
}

/** A resumed run on scenarios: the same files (checked by their hashes) with the stored values. */
export function scenarioRunPlan(config: EvolveConfig): SnapshotPlan {
  const stored = config.scenario!;
  const first = withRunOverrides(checked(stored.ref, stored.contentHash), {
    workload: config.workload,
    agents: config.agents,
    nodes: config.nodes,
    nodeKinds: config.nodeKinds,
    split: config.split,
    mechanics: parseMechanics(config.mechanics),
    warmupMinutes: config.warmupMinutes,
    minutes: config.windowMinutes,
    seed: config.seed,
  });
  const more = config.moreScenarios.map((m) => withRunOverrides(checked(m.ref, m.contentHash), { seed: m.seed, warmupMinutes: m.warmupMinutes, minutes: m.minutes }));
  return planOf([first, ...more], config.windows, config.validateSeeds);
}

function checked(ref: string, contentHash: string): LoadedScenario {
  const loaded = loadScenario(ref);
  if (loaded.contentHash !== contentHash) {
    throw new InputError('the scenario changed since this run started (content hash differs); start a new run', { file: ref, field: 'scenario.contentHash' });
  }
  return loaded;
}

function planOf(scenarios: readonly LoadedScenario[], windows: number, validateSeeds: readonly number[]): SnapshotPlan {
  checkValidateSeeds(validateSeeds, scenarios.map((s) => s.run.seed));
  const cut = (s: LoadedScenario, seed?: number): Snapshot[] =>
    Array.from({ length: windows }, (_, w) => {
      const window = windows === 1 ? s : withRunOverrides(s, windowOf(s.run.warmupMinutes, s.run.minutes, w, windows));
      return seed === undefined ? scenarioSnapshot(window) : scenarioSnapshot(window, { seed });
    });
  return {
    train: scenarios.flatMap((s) => cut(s)),
    validation: scenarios.flatMap((s) => validateSeeds.flatMap((v) => cut(s, v))),
  };
}

/** A resumed (or stored) run on a scenario: its first training snapshot (what a single-snapshot run replays). */
export function scenarioRunSnapshot(config: EvolveConfig): Snapshot {
  return scenarioRunPlan({ ...config, validateSeeds: [] }).train[0]!;
}
