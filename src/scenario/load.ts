import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { InputError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import { expandNodeKinds, parseMechanics, parseScenario, parseSplit, type MembershipChange, type RunConfig } from '../sim/index.js';
import { loadNodeKind } from '../sim/profiles/index.js';
import { loadWorkloadPreset } from '../workload/index.js';
import { ScenarioFileSchema, type ScenarioFile } from './schema.js';
import { generateSpotTimeline } from './spot.js';

/** A scenario file read, checked and resolved to the simulator's run config. */
export interface LoadedScenario {
  name: string;
  /** The file it was read from (absolute). */
  file: string;
  /**
   * sha256 (hex) of the canonical parsed content: the file with its defaults
   * filled in, keys sorted, plus the membership timeline it resolves to (so a
   * change to the spot generator changes it too). Overrides applied later
   * (`withRunOverrides`) are not part of it.
   */
  contentHash: string;
  spec: ScenarioFile;
  run: RunConfig;
}

export function scenariosDir(): string {
  return join(packageRoot(), 'evaluator', 'scenarios');
}

/** Names of the scenarios shipped in evaluator/scenarios, sorted. */
export function listScenarios(): string[] {
  const dir = scenariosDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** A shipped scenario by name (`steady-cc`) or a scenario file by path (`*.json`). */
export function loadScenario(ref: string): LoadedScenario {
  const isPath = ref.endsWith('.json') || ref.includes('/') || ref.includes('\\');
  const file = isPath ? resolve(ref) : join(scenariosDir(), `${ref}.json`);
  if (!existsSync(file)) {
    if (isPath) throw new InputError('scenario file not found', { file: ref });
    throw new InputError(`unknown scenario "${ref}"; known scenarios: ${listScenarios().join(', ') || '(none)'}`, { field: '--scenario' });
  }
  const shown = isPath ? ref : join('evaluator', 'scenarios', `${ref}.json`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InputError(`not valid JSON: ${(error as Error).message}`, { file: shown });
  }
  const spec = parseFile(json, shown);
  if (dirname(file) === scenariosDir() && spec.name !== basename(file, '.json')) {
    throw new InputError(`"${spec.name}" does not match the file name`, { file: shown, field: 'name' });
  }
  const run = resolveRun(spec, dirname(file), shown);
  return { name: spec.name, file, contentHash: hashOf({ spec, membership: run.membership }), spec, run };
}

/**
 * Parse with the file schema; the error names the deepest field at fault:
 * an unknown key by its own path, a union (membership list or generator) by
 * the branch that got furthest.
 */
function parseFile(json: unknown, file: string): ScenarioFile {
  const result = ScenarioFileSchema.safeParse(json);
  if (result.success) return result.data;
  let issue = result.error.issues[0]!;
  let path: PropertyKey[] = [...issue.path];
  while (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const branch = issue.errors.map((list) => list[0]!).reduce((a, b) => (b.path.length > a.path.length ? b : a));
    issue = branch;
    path = [...path, ...branch.path];
  }
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0]!];
    message = `unknown field${issue.keys.length > 1 ? ` (also ${issue.keys.slice(1).join(', ')})` : ''}`;
  }
  throw new InputError(message, { file, field: path.map(String).join('.') || undefined });
}

/** Run `fn`; an InputError it throws is re-thrown naming this file and field. */
function at<T>(file: string, field: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    throw new InputError(error.message.replace(/^(?:[^:]+: )?field [^:]+: /, ''), { file, field });
  }
}

function resolveRun(spec: ScenarioFile, dir: string, file: string): RunConfig {
  const nodes = spec.cluster.nodes;
  const workload = resolveWorkload(spec, dir, file);
  const nodeKinds = at(file, 'cluster.kinds', () => expandNodeKinds(spec.cluster.kinds, nodes));
  nodeKinds.forEach((kind, i) => at(file, Array.isArray(spec.cluster.kinds) ? `cluster.kinds.${i}` : 'cluster.kinds', () => loadNodeKind(kind)));
  const mechanics = at(file, 'mechanics', () => parseMechanics(spec.mechanics));
  at(file, 'split', () => parseSplit(spec.split, nodes));
  const membership = resolveMembership(spec, file);
  return at(file, 'workload', () =>
    parseScenario({
      workload,
      agents: spec.workload.agents,
      arrivalRate: spec.workload.arrivalRate,
      bursts: spec.workload.bursts,
      outputCv: spec.workload.outputCv,
      nodes,
      nodeKinds,
      split: spec.split,
      mechanics,
      warmupMinutes: spec.warmupMinutes,
      minutes: spec.minutes,
      seed: spec.seed,
      membership,
    }),
  );
}

/** A preset name stays a name; a preset or trace path is taken from the scenario file's folder. */
function resolveWorkload(spec: ScenarioFile, dir: string, file: string): string {
  const w = spec.workload;
  if (w.trace !== undefined) {
    const path = isAbsolute(w.trace) ? w.trace : join(dir, w.trace);
    if (!existsSync(path)) throw new InputError(`trace file ${w.trace} not found`, { file, field: 'workload.trace' });
    return path;
  }
  const preset = w.preset!;
  const isPath = preset.endsWith('.json') || preset.includes('/');
  const ref = isPath && !isAbsolute(preset) ? join(dir, preset) : preset;
  at(file, 'workload.preset', () => loadWorkloadPreset(ref));
  return ref;
}

function resolveMembership(spec: ScenarioFile, file: string): MembershipChange[] {
  const nodes = spec.cluster.nodes;
  if (!Array.isArray(spec.membership)) return generateSpotTimeline(spec.membership.spot, nodes);
  const list = spec.membership;
  list.forEach((m, i) => {
    if (m.node >= nodes) throw new InputError(`node ${m.node} is not in the cluster (nodes 0 to ${nodes - 1})`, { file, field: `membership.${i}.node` });
    if (i > 0 && m.at < list[i - 1]!.at) throw new InputError('changes must be in time order', { file, field: `membership.${i}.at` });
  });
  return list.map((m) => ({ ...m }));
}

/** JSON with object keys sorted at every level: equal content, equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

function hashOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
