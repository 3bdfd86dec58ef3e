import type { Program } from 'acorn';
import type { Rng } from '../../../common/rng.js';
import { formatNumber, roundReal } from '../structural/numbers.js';
import { literalSites } from '../structural/perturb-literal.js';
import { splice } from '../structural/source.js';

/** One tunable constant: the sites the structural mutator's literal edit uses. */
export interface TunableLiteral {
  value: number;
  raw: string;
  integer: boolean;
  start: number;
  end: number;
  where: string;
  line: number;
}

/** Up to `max` tunable literals, drawn without replacement when there are more, in source order. */
export function pickLiterals(program: Program, max: number, rng: Rng): TunableLiteral[] {
  const all = literalSites({ program }).map((s) => ({ ...s.literal, where: s.where, line: s.line }));
  if (all.length <= max) return all;
  const left = [...all];
  const chosen: TunableLiteral[] = [];
  while (chosen.length < max) chosen.push(left.splice(rng.int(0, left.length - 1), 1)[0]!);
  return chosen.sort((a, b) => a.start - b.start);
}

/**
 * The search works on log|value| (a 0.05 and a 300 move by the same relative
 * step); signs never change. Integers stay non-zero integers and reals keep
 * three significant digits, as the structural mutator writes them.
 */
export function toPoint(literals: readonly TunableLiteral[]): number[] {
  return literals.map((l) => Math.log(Math.abs(l.value)));
}

export function valueAt(literal: TunableLiteral, x: number): number {
  const magnitude = Math.exp(x) * Math.sign(literal.value);
  if (!literal.integer) return roundReal(magnitude);
  const n = Math.round(roundReal(magnitude));
  return n === 0 ? Math.sign(literal.value) : n;
}

/** The code with every literal replaced by its value at the point (spliced from the end, so offsets hold). */
export function codeAt(code: string, literals: readonly TunableLiteral[], point: readonly number[]): string {
  let out = code;
  for (let i = literals.length - 1; i >= 0; i--) {
    const l = literals[i]!;
    out = splice(out, l.start, l.end, formatNumber(valueAt(l, point[i]!)));
  }
  return out;
}
