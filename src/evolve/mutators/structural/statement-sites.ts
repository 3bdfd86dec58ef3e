import type { AnyNode, Statement } from 'acorn';
import { nodesWithAncestors, type EditContext } from './edit.js';
import { lineOf, whereOf } from './source.js';

export interface StatementSite {
  statement: Statement;
  /** The last statement of a function body and a return: the function's answer. */
  finalReturn: boolean;
  where: string;
  line: number;
}

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/**
 * Statements of blocks inside functions (the function body and the nested
 * blocks of its ifs and loops), in source order. Top-level statements are
 * left alone: they declare the functions and constants everything else uses.
 */
export function statementSites(context: EditContext): StatementSite[] {
  const sites: StatementSite[] = [];
  for (const { node, ancestors } of nodesWithAncestors(context.program)) {
    if (node.type !== 'BlockStatement' || !ancestors.some((a) => FUNCTIONS.has(a.type))) continue;
    const owner: AnyNode | undefined = ancestors[ancestors.length - 2];
    const isFunctionBody = owner !== undefined && FUNCTIONS.has(owner.type) && 'body' in owner && owner.body === node;
    node.body.forEach((statement, index) => {
      sites.push({
        statement,
        finalReturn: isFunctionBody && index === node.body.length - 1 && statement.type === 'ReturnStatement',
        where: whereOf(ancestors),
        line: lineOf(statement),
      });
    });
  }
  return sites;
}
