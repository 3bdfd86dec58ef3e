import type { Edit, EditKind } from './edit.js';
import { comparisonSites, EQUALITY, operatorRange, RELATIONAL } from './comparisons.js';
import { splice } from './source.js';

/** The operators a comparison may flip to: same precedence, so the rest of the expression parses the same. */
const FLIPS: Record<string, readonly string[]> = {
  '<': ['<=', '>', '>='],
  '<=': ['<', '>', '>='],
  '>': ['>=', '<', '<='],
  '>=': ['>', '<', '<='],
  '===': ['!=='],
  '!==': ['==='],
  '==': ['!='],
  '!=': ['=='],
};

/**
 * Change one comparison's operator: include or exclude the boundary (`>` to
 * `>=`), reverse the direction (`>` to `<`), or negate an equality.
 */
export const flipComparison: EditKind = {
  name: 'flip-comparison',
  weight: 1,
  apply(context, rng): Edit | null {
    const sites = comparisonSites(context, [...RELATIONAL, ...EQUALITY]);
    if (sites.length === 0) return null;
    const site = rng.pick(sites);
    const from = site.node.operator;
    const to = rng.pick(FLIPS[from]!);
    const range = operatorRange(context.code, site.node);
    return {
      code: splice(context.code, range.start, range.end, to),
      description: `flip ${from} to ${to} ${site.where} (line ${site.line})`,
    };
  },
};
