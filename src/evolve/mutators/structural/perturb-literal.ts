import type { AnyNode } from 'acorn';
import { nodesWithAncestors, type Edit, type EditContext, type EditKind } from './edit.js';
import { formatNumber, numericLiteral, perturbLogScale, type NumericOperand } from './numbers.js';
import { lineOf, splice, whereOf } from './source.js';

/**
 * Multiply one numeric literal by exp(N(0, 0.5)): thresholds, hold times,
 * margins and weights are what most policies differ by.
 */
export const perturbLiteral: EditKind = {
  name: 'perturb-literal',
  weight: 3,
  apply(context, rng): Edit | null {
    const sites = literalSites(context);
    if (sites.length === 0) return null;
    const site = rng.pick(sites);
    const next = perturbLogScale(site.literal.value, site.literal.integer, rng);
    const text = formatNumber(next);
    return {
      code: splice(context.code, site.literal.start, site.literal.end, text),
      description: `perturb literal ${site.literal.raw} -> ${text} ${site.where} (line ${site.line})`,
    };
  },
};

export function literalSites(context: Pick<EditContext, "program">): { literal: NumericOperand; where: string; line: number }[] {
  const sites: { literal: NumericOperand; where: string; line: number }[] = [];
  for (const { node, ancestors } of nodesWithAncestors(context.program)) {
    const literal = numericLiteral(node);
    if (!literal || isIndexLike(literal, node, ancestors)) continue;
    sites.push({ literal, where: whereOf(ancestors), line: lineOf(node) });
  }
  return sites;
}

/**
 * Literals that index or count rather than tune: moving them mostly breaks
 * the policy (an off-by-one, an undefined element) and wastes an evaluation.
 * Skipped: 0 (a multiplicative step cannot move it), array subscripts
 * `xs[0]`, a 1 added or subtracted (`i - 1`, `n + 1`, `x += 1`), and loop
 * initialisers and updates (`for (let p = 1; ...; p += 1)`). Loop bounds in
 * the test (`p < 8`) stay editable. Also skipped: bit-level constants,
 * anything inside an operand of a mixing operation (`^ | & << >> >>>` and
 * `Math.imul`, but not a truncation such as `x | 0` or `x >>> 0`), so also a
 * seed hashed into a PRNG (`(ctx.seed * 2654435761) ^ Math.floor(t * 1000)`),
 * the divisor that scales mixed bits to [0, 1) (`(h >>> 0) / 4294967296`),
 * and anything written in hex, octal or binary. Moving one changes the random
 * stream, not a decision, so its fitness change is noise the search chases
 * (a 10-minute steady-cc run's winner was such an edit: 4294967296 ->
 * 5960000000 and 1000 -> 3080 in the lookahead seed's forecast PRNG).
 */
function isIndexLike(literal: NumericOperand, node: AnyNode, ancestors: readonly AnyNode[]): boolean {
  if (literal.value === 0) return true;
  if (/^0[xob]/i.test(literal.raw)) return true;
  const parent = ancestors[ancestors.length - 2];
  for (let i = 0; i < ancestors.length - 1; i++) if (isMixing(ancestors[i]!)) return true;
  if (parent?.type === 'BinaryExpression' && parent.operator === '/' && parent.right === node && containsMixing(parent.left)) return true;
  if (parent?.type === 'MemberExpression' && parent.computed && parent.property === node) return true;
  if (literal.value === 1) {
    if (parent?.type === 'BinaryExpression' && (parent.operator === '+' || parent.operator === '-')) return true;
    if (parent?.type === 'AssignmentExpression' && (parent.operator === '+=' || parent.operator === '-=')) return true;
  }
  for (const ancestor of ancestors) {
    if (ancestor.type !== 'ForStatement') continue;
    const inInit = ancestor.init && within(node, ancestor.init);
    const inUpdate = ancestor.update && within(node, ancestor.update);
    if (inInit || inUpdate) return true;
  }
  return false;
}

const BIT_OPERATORS = new Set(['^', '|', '&', '<<', '>>', '>>>', '^=', '|=', '&=', '<<=', '>>=', '>>>=']);

const TRUNCATIONS = new Set(['|', '>>', '>>>', '|=', '>>=', '>>>=']);

/** A bit operation that mixes (a PRNG's or a hash's step), not a truncation to an integer (`x | 0`, `x >>> 0`). */
function isMixing(node: AnyNode): boolean {
  if (node.type === 'BinaryExpression' || node.type === 'AssignmentExpression') {
    if (!BIT_OPERATORS.has(node.operator)) return false;
    const right = node.right;
    const truncation = TRUNCATIONS.has(node.operator) && right.type === 'Literal' && right.value === 0;
    return !truncation;
  }
  if (node.type !== 'CallExpression') return false;
  const callee = node.callee;
  return (
    callee.type === 'MemberExpression' &&
    callee.object.type === 'Identifier' &&
    callee.object.name === 'Math' &&
    callee.property.type === 'Identifier' &&
    callee.property.name === 'imul'
  );
}

function containsMixing(node: AnyNode): boolean {
  if (isMixing(node)) return true;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item) && containsMixing(item)) return true;
    } else if (isNode(value) && containsMixing(value)) return true;
  }
  return false;
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function within(node: AnyNode, outer: { start: number; end: number }): boolean {
  return node.start >= outer.start && node.end <= outer.end;
}
