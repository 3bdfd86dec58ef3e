import { UsageError } from '../common/errors.js';
import { MechanicsSchema, parseMechanics } from '../sim/index.js';
import { allSplits, groupNames } from './targets.js';
import type { Measure, Targets } from './targets-schema.js';

/** One simulation run of the calibration: a static split serving a workload under some mechanics. */
export interface RunSpec {
  /** Identifies the run; equal keys are the same run, so sweeps and tables share it. */
  key: string;
  workload: string;
  agents: number;
  split: string;
  /** As given in the targets file (e.g. `sglang-pd,fetch=async`). */
  mechanics: string;
  nodes: number;
  nodeKind: string;
  warmupMinutes: number;
  minutes: number;
  seed: number;
}

/**
 * Durations of every run and the workload seeds each run is repeated with;
 * the targets file's setup unless a caller (--seeds, tests) overrides them.
 */
export interface RunSettings {
  warmupMinutes: number;
  minutes: number;
  seeds: number[];
}

export function defaultSettings(t: Targets): RunSettings {
  return { warmupMinutes: t.setup.warmupMinutes, minutes: t.setup.scoredMinutes, seeds: [...t.setup.seeds] };
}

/** Which groups (sweeps, tables, micro) to run. */
export interface Selection {
  sweeps: Set<string>;
  tables: Set<string>;
  micro: boolean;
}

/**
 * Parse `--only` (comma-separated group names); undefined selects everything.
 * An unknown name is a usage error listing the valid ones.
 */
export function selectGroups(t: Targets, only?: string): Selection {
  const names = groupNames(t);
  if (only === undefined) return { sweeps: new Set(t.sweeps.map((s) => s.id)), tables: new Set(t.tables.map((x) => x.id)), micro: true };
  const wanted = only.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (wanted.length === 0) throw new UsageError(`--only needs a name; valid names: ${names.join(', ')}`);
  for (const name of wanted) {
    if (!names.includes(name)) throw new UsageError(`unknown --only name "${name}"; valid names: ${names.join(', ')}`);
  }
  return {
    sweeps: new Set(wanted.filter((n) => t.sweeps.some((s) => s.id === n))),
    tables: new Set(wanted.filter((n) => t.tables.some((x) => x.id === n))),
    micro: wanted.includes('micro'),
  };
}

/**
 * Canonical form of a mechanics spec, so `sglang-pd` and `sglang-pd,fetch=at-start` are one run.
 * Every field of the schema, in its order: a mechanic left out would make runs that differ in it one run.
 */
export function canonicalMechanics(spec: string): string {
  const m = parseMechanics(spec) as Record<string, string>;
  return Object.keys(MechanicsSchema.shape).map((key) => m[key]).join('/');
}

/** One run with one seed of the list (the key holds the seed, so each seed is its own run). */
export function makeRun(t: Targets, s: RunSettings, seed: number, workload: string, agents: number, split: string, mechanics: string): RunSpec {
  const base = { workload, agents, split, mechanics, nodes: t.setup.nodes, nodeKind: t.setup.nodeKind, warmupMinutes: s.warmupMinutes, minutes: s.minutes, seed };
  const key = [workload, agents, split, canonicalMechanics(mechanics), base.nodes, base.nodeKind, s.warmupMinutes, s.minutes, seed].join('|');
  return { key, ...base };
}

export function sweepRuns(t: Targets, s: RunSettings, seed: number, sweepId: string): RunSpec[] {
  const sweep = t.sweeps.find((x) => x.id === sweepId)!;
  return allSplits(t.setup.nodes).map((split) => makeRun(t, s, seed, sweep.workload, sweep.agents, split, sweep.mechanics));
}

export function tableRun(t: Targets, s: RunSettings, seed: number, tableId: string, columnId: string): RunSpec {
  const table = t.tables.find((x) => x.id === tableId)!;
  const column = table.columns.find((c) => c.id === columnId)!;
  return makeRun(t, s, seed, table.workload, table.agents, table.split, column.mechanics);
}

/**
 * The distinct runs a selection needs, for every seed of the settings: a
 * group's runs for all seeds together, the groups in file order (heaviest
 * workloads first) so that the pool ends evenly.
 */
export function planRuns(t: Targets, sel: Selection, s: RunSettings): RunSpec[] {
  const runs = new Map<string, RunSpec>();
  const add = (r: RunSpec): void => {
    if (!runs.has(r.key)) runs.set(r.key, r);
  };
  for (const id of sel.sweeps) for (const seed of s.seeds) sweepRuns(t, s, seed, id).forEach(add);
  for (const id of sel.tables) for (const c of t.tables.find((x) => x.id === id)!.columns) for (const seed of s.seeds) add(tableRun(t, s, seed, id, c.id));
  if (sel.micro) {
    for (const m of t.micro) {
      for (const seed of s.seeds) {
        const run = microRun(t, s, seed, m.measure);
        if (run) add(run);
      }
    }
  }
  return [...runs.values()];
}

/** The run a micro figure is read from (a table column's or a sweep's split), or null for figures that come from no run. */
export function microRun(t: Targets, s: RunSettings, seed: number, ms: Measure): RunSpec | null {
  if (ms.kind === 'table-run') return tableRun(t, s, seed, ms.table, ms.column);
  if (ms.kind !== 'sweep-run') return null;
  const sweep = t.sweeps.find((x) => x.id === ms.sweep)!;
  return makeRun(t, s, seed, sweep.workload, sweep.agents, ms.split, sweep.mechanics);
}
