import type { AnyNode } from 'acorn';
import type { Rng } from '../../../common/rng.js';

/** A number written in the source: a numeric literal, or one under a unary minus. */
export interface NumericOperand {
  value: number;
  raw: string;
  /** Written as an integer (no decimal point, no exponent): edits keep it an integer. */
  integer: boolean;
  start: number;
  end: number;
}

export function numericLiteral(node: AnyNode): NumericOperand | null {
  if (node.type !== 'Literal' || typeof node.value !== 'number') return null;
  const raw = node.raw ?? String(node.value);
  return { value: node.value, raw, integer: isIntegerRaw(raw, node.value), start: node.start, end: node.end };
}

/** `5` or `-5`: the operand of a comparison, sign included. */
export function numericOperand(node: AnyNode): NumericOperand | null {
  if (node.type === 'UnaryExpression' && node.operator === '-') {
    const inner = numericLiteral(node.argument);
    if (!inner) return null;
    return { ...inner, value: -inner.value, raw: '-' + inner.raw, start: node.start, end: node.end };
  }
  return numericLiteral(node);
}

function isIntegerRaw(raw: string, value: number): boolean {
  if (!Number.isInteger(value)) return false;
  // 0x10 and 1_000 are integers; 1.0 and 1e3 were written as reals.
  return /^0[xob]/i.test(raw) || !/[.eE]/.test(raw);
}

/** Three significant digits: enough to move a knob, short enough to read in a diff. */
export function roundReal(value: number): number {
  return Number(value.toPrecision(3));
}

/**
 * Source text for a number. Negative results only come from shifting a
 * comparison operand, where `a > -4` needs no parentheses.
 */
export function formatNumber(value: number): string {
  return String(Object.is(value, -0) ? 0 : value);
}

/**
 * value * exp(N(0, 0.5)): a multiplicative step, so that a 0.05 and a 300
 * move by the same relative amount (callers skip 0, which it cannot move).
 * Integers stay integers and never become zero (a zero could never move
 * again): when rounding gives the old value back the step is one unit in the
 * direction drawn, and a 1 pushed down to 0 goes to 2 instead.
 */
export function perturbLogScale(value: number, integer: boolean, rng: Rng): number {
  const factor = Math.exp(rng.normal(0, 0.5));
  if (!integer) {
    const next = roundReal(value * factor);
    return next !== value ? next : roundReal(value * (factor >= 1 ? 1.1 : 0.9));
  }
  // Three significant digits for integers too: 1e9 * 1.37 reads 1370000000, not 1371234567.
  let next = Math.round(roundReal(value * factor));
  if (next === value) next = value + Math.sign(value) * (factor >= 1 ? 1 : -1);
  return next === 0 ? value * 2 : next;
}
