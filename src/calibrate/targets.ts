import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import { parseOrThrow } from '../common/validate.js';
import { TargetsSchema, type Targets } from './targets-schema.js';

/** The shipped targets file, relative to the package root (also used in messages). */
export const TARGETS_FILE = 'evaluator/calibration/targets.json';

/** Load and validate a targets file (default: the shipped one). Errors name the file and field. */
export function loadTargets(file?: string): Targets {
  const path = file ?? join(packageRoot(), TARGETS_FILE);
  const label = file ?? TARGETS_FILE;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read calibration targets: ${(error as Error).message}`, { file: label });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(`not valid JSON: ${(error as Error).message}`, { file: label });
  }
  const targets = parseOrThrow(TargetsSchema, value, { file: label });
  checkSplits(targets, label);
  return targets;
}

/** Published splits must fit the calibration cluster. */
function checkSplits(t: Targets, file: string): void {
  const check = (split: string, field: string): void => {
    const [p, d] = splitCounts(split);
    if (p + d !== t.setup.nodes || p < 1 || d < 1) throw new InputError(`split ${split} does not fit ${t.setup.nodes} nodes`, { file, field });
  };
  t.sweeps.forEach((s, i) => check(s.publishedBest, `sweeps.${i}.publishedBest`));
  t.tables.forEach((s, i) => check(s.split, `tables.${i}.split`));
}

/** `4P5D` -> [4, 5]. */
export function splitCounts(split: string): [number, number] {
  const m = /^(\d+)P(\d+)D$/.exec(split);
  if (!m) throw new InputError(`split "${split}" is not of the form <n>P<m>D`);
  return [Number(m[1]), Number(m[2])];
}

/** Every static split of `nodes` nodes, from 1P(n-1)D to (n-1)P1D. */
export function allSplits(nodes: number): string[] {
  return Array.from({ length: nodes - 1 }, (_, i) => `${i + 1}P${nodes - i - 1}D`);
}

/** Names `--only` accepts: every sweep, every table, and `micro`. */
export function groupNames(t: Targets): string[] {
  return [...t.sweeps.map((s) => s.id), ...t.tables.map((x) => x.id), 'micro'];
}
