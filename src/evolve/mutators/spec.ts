import { UsageError } from '../../common/errors.js';

export type MutatorName = 'structural' | 'llm' | 'tune' | 'crossover' | 'knob' | 'knob-search';
const NAMES: readonly MutatorName[] = ['structural', 'llm', 'tune', 'crossover', 'knob', 'knob-search'];

/**
 * The default offline mix of `evolve`: mostly structural edits, constant
 * tuning for a third (each tuning run costs several replays), a little
 * function-level crossover, and knob insertion (contract v2: the only edit
 * that adds a plan field the parent does not set) for about one candidate in
 * seven, taken from the structural share. The insertion is `knob-search`
 * (the best of up to --knob-replays pairs), not the blind `knob`: on hetero
 * the one pair worth +8.8 % on greedy is 1 of 15, which a blind draw finds
 * in 1.25 % of the mix's candidates and a search of 8 in 8 %, about 4.7
 * times as often per replay spent (docs/evolution.md).
 */
export const DEFAULT_OFFLINE_MIX = 'mix:structural=0.45,knob-search=0.15,tune=0.3,crossover=0.1';

/**
 * The default mix without knob insertion, neither `knob` nor `knob-search`
 * (its share back to structural; the default before it existed): from seeds
 * that set no knob, no candidate can set one (bench/evolve-suite's roles-only
 * arm).
 */
export const ROLES_ONLY_OFFLINE_MIX = 'mix:structural=0.6,tune=0.3,crossover=0.1';

/**
 * The --mutator flag: `structural`, `llm`, `tune`, `crossover`, `knob`, `knob-search`, or `mix:llm=0.7,structural=0.3`.
 * Mix weights are relative (they need not sum to 1); a weight of 0 keeps a
 * mutator out without editing the rest of the spec.
 */
export function parseMutatorSpec(spec: string): { name: MutatorName; weight: number }[] {
  const text = spec.trim();
  if (isName(text)) return [{ name: text, weight: 1 }];
  if (!text.startsWith('mix:')) throw bad(spec, `expected structural, llm, tune, crossover, knob, knob-search or mix:NAME=WEIGHT,...`);
  const parts: { name: MutatorName; weight: number }[] = [];
  for (const item of text.slice('mix:'.length).split(',')) {
    const match = /^\s*([a-z][a-z-]*)\s*=\s*([^\s,]+)\s*$/.exec(item);
    if (!match) throw bad(spec, `'${item.trim()}' is not NAME=WEIGHT`);
    const [, name, weightText] = match as unknown as [string, string, string];
    if (!isName(name)) throw bad(spec, `unknown mutator '${name}' (known: ${NAMES.join(', ')})`);
    const weight = Number(weightText);
    if (!Number.isFinite(weight) || weight < 0) throw bad(spec, `weight of ${name} must be a number >= 0, got '${weightText}'`);
    if (parts.some((p) => p.name === name)) throw bad(spec, `${name} is listed twice`);
    parts.push({ name, weight });
  }
  if (!parts.some((p) => p.weight > 0)) throw bad(spec, 'at least one weight must be above 0');
  return parts;
}

function isName(text: string): text is MutatorName {
  return (NAMES as readonly string[]).includes(text);
}

function bad(spec: string, why: string): UsageError {
  return new UsageError(`--mutator '${spec}': ${why}`);
}
