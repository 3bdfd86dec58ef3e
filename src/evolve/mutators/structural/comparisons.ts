import { tokenizer, type BinaryExpression } from 'acorn';
import { nodesWithAncestors, type EditContext } from './edit.js';
import { lineOf, whereOf } from './source.js';

export const RELATIONAL = ['<', '<=', '>', '>='] as const;
export const EQUALITY = ['===', '!==', '==', '!='] as const;

export interface ComparisonSite {
  node: BinaryExpression;
  where: string;
  line: number;
}

/** Binary expressions whose operator is one of `operators`, in source order. */
export function comparisonSites(context: EditContext, operators: readonly string[]): ComparisonSite[] {
  const sites: ComparisonSite[] = [];
  for (const { node, ancestors } of nodesWithAncestors(context.program)) {
    if (node.type !== 'BinaryExpression' || !operators.includes(node.operator)) continue;
    sites.push({ node, where: whereOf(ancestors), line: lineOf(node) });
  }
  return sites;
}

/**
 * Where the operator token of a comparison is in the source. Between the two
 * operands there may be parentheses and comments, so the gap is tokenized
 * rather than searched for the operator's characters.
 */
export function operatorRange(code: string, node: BinaryExpression): { start: number; end: number } {
  const gapStart = node.left.end;
  const gap = code.slice(gapStart, node.right.start);
  for (const token of tokenizer(gap, { ecmaVersion: 'latest' })) {
    if (gap.slice(token.start, token.end) === node.operator) return { start: gapStart + token.start, end: gapStart + token.end };
  }
  // The parser put the operator there; not finding it is a bug, not bad input.
  throw new Error(`operator ${node.operator} not found between the operands at ${node.start}`);
}
