import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { InputError } from '../common/errors.js';
import { parseOrThrow } from '../common/validate.js';
import { workloadsDir } from './package-root.js';
import {
  agentKindSchema,
  kindRefSchema,
  presetFileSchema,
  type AgentKind,
  type Phase,
  type WorkloadPreset,
} from './preset-schema.js';

/** Names of the presets shipped in evaluator/workloads, sorted. */
export function listWorkloadPresets(): string[] {
  const dir = workloadsDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** A preset by name (`cc`) or by path to a .json file. */
export function loadWorkloadPreset(nameOrPath: string): WorkloadPreset {
  return loadResolved(presetFile(nameOrPath), []);
}

function isPath(nameOrPath: string): boolean {
  return nameOrPath.endsWith('.json') || nameOrPath.includes('/') || nameOrPath.includes('\\');
}

function presetFile(nameOrPath: string): string {
  if (isPath(nameOrPath)) {
    const file = resolve(nameOrPath);
    if (!existsSync(file)) throw new InputError('workload preset file not found', { file: nameOrPath });
    return file;
  }
  const file = join(workloadsDir(), `${nameOrPath}.json`);
  if (!existsSync(file)) {
    const known = listWorkloadPresets();
    throw new InputError(`unknown workload preset "${nameOrPath}"; known presets: ${known.join(', ') || '(none)'}`);
  }
  return file;
}

function readJson(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`not valid JSON: ${(error as Error).message}`, { file });
  }
}

/** `stack` holds the files being loaded, to reject kinds that refer to each other in a circle. */
function loadResolved(file: string, stack: string[]): WorkloadPreset {
  if (stack.includes(file)) throw new InputError(`kind references form a cycle: ${[...stack, file].map((f) => basename(f)).join(' -> ')}`, { file });
  const json = readJson(file);
  const raw = parseOrThrow(presetFileSchema, json, { file });
  for (const key of Object.keys(raw.notes ?? {})) {
    if (!hasPath(json, key)) throw new InputError(`note for "${key}", which is not a field of this preset`, { file, field: `notes.${key}` });
  }
  const kinds: Record<string, AgentKind> = {};
  for (const [name, value] of Object.entries(raw.kinds)) {
    const field = `kinds.${name}`;
    if ('from' in value) {
      const ref = parseOrThrow(kindRefSchema, value, { file, field });
      const other = loadResolved(referencedFile(ref.from, file, `${field}.from`), [...stack, file]);
      const kindName = ref.kind ?? soleKind(other, file, field);
      const kind = other.kinds[kindName];
      if (!kind) throw new InputError(`preset "${ref.from}" has no kind "${kindName}"`, { file, field: `${field}.kind` });
      kinds[name] = kind;
    } else {
      kinds[name] = parseOrThrow(agentKindSchema, value, { file, field });
    }
  }
  const phases = resolvePhases(raw.phases, raw.mix, kinds, file);
  return { name: raw.name, description: raw.description, model: raw.model, loop: raw.loop, kinds, phases, ...(raw.bursts ? { bursts: raw.bursts } : {}), file };
}

function referencedFile(nameOrPath: string, file: string, field: string): string {
  try {
    return presetFile(nameOrPath);
  } catch (error) {
    if (error instanceof InputError) throw new InputError(error.message, { file, field });
    throw error;
  }
}

function soleKind(preset: WorkloadPreset, file: string, field: string): string {
  const names = Object.keys(preset.kinds);
  if (names.length !== 1) throw new InputError(`preset "${preset.name}" has several kinds (${names.join(', ')}); name one with "kind"`, { file, field });
  return names[0]!;
}

function resolvePhases(
  phases: Phase[] | undefined,
  mix: Record<string, number> | undefined,
  kinds: Record<string, AgentKind>,
  file: string,
): Phase[] {
  const names = Object.keys(kinds);
  if (!phases) {
    if (!mix && names.length > 1) throw new InputError(`several kinds (${names.join(', ')}) need a "mix" or "phases"`, { file, field: 'mix' });
    phases = [{ startSeconds: 0, mix: mix ?? { [names[0]!]: 1 } }];
    checkMix(phases[0]!.mix, kinds, file, 'mix');
    return phases;
  }
  phases.forEach((phase, i) => {
    const field = `phases.${i}`;
    if (i === 0 && phase.startSeconds !== 0) throw new InputError('the first phase must start at 0', { file, field: `${field}.startSeconds` });
    if (i > 0 && phase.startSeconds <= phases[i - 1]!.startSeconds) throw new InputError('phases must start in increasing order', { file, field: `${field}.startSeconds` });
    checkMix(phase.mix, kinds, file, `${field}.mix`);
  });
  return phases;
}

function checkMix(mix: Record<string, number>, kinds: Record<string, AgentKind>, file: string, field: string): void {
  let total = 0;
  for (const [name, weight] of Object.entries(mix)) {
    if (!kinds[name]) throw new InputError(`unknown kind "${name}"; kinds: ${Object.keys(kinds).join(', ')}`, { file, field: `${field}.${name}` });
    total += weight;
  }
  if (!(total > 0)) throw new InputError('weights must add up to more than 0', { file, field });
}

/** Whether a dotted path (`kinds.cc.pauseSeconds.mean`) names a field of the raw preset. */
function hasPath(root: unknown, dotted: string): boolean {
  let cur: unknown = root;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, part)) return false;
    cur = (cur as Record<string, unknown>)[part];
  }
  return true;
}
