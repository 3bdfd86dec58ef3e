import type { Rng } from '../../../common/rng.js';
import type { Edit, EditKind } from './edit.js';
import { comparisonSites, RELATIONAL } from './comparisons.js';
import { formatNumber, numericOperand, roundReal, type NumericOperand } from './numbers.js';
import { splice } from './source.js';

/**
 * Move the number a relational comparison tests against by a small additive
 * step (5-20 % of its size, at least one unit for integers): a finer knob
 * than the log-scale perturbation, for thresholds that are nearly right.
 */
export const shiftComparison: EditKind = {
  name: 'shift-comparison',
  weight: 2,
  apply(context, rng): Edit | null {
    const sites = comparisonSites(context, RELATIONAL).flatMap((site) => {
      const operand = numericOperand(site.node.right) ?? numericOperand(site.node.left);
      return operand ? [{ ...site, operand }] : [];
    });
    if (sites.length === 0) return null;
    const site = rng.pick(sites);
    const next = shifted(site.operand, rng);
    const text = formatNumber(next);
    return {
      code: splice(context.code, site.operand.start, site.operand.end, text),
      description: `shift ${site.node.operator} threshold ${site.operand.raw} -> ${text} ${site.where} (line ${site.line})`,
    };
  },
};

function shifted(operand: NumericOperand, rng: Rng): number {
  const sign = rng.chance(0.5) ? 1 : -1;
  const size = Math.abs(operand.value) * rng.uniform(0.05, 0.2);
  if (operand.integer) return operand.value + sign * Math.max(1, Math.round(size));
  // A real zero has no size to take a fraction of: step by a tenth.
  const step = size > 0 ? size : 0.1;
  const next = roundReal(operand.value + sign * step);
  return next !== operand.value ? next : roundReal(operand.value + sign * step * 2);
}
