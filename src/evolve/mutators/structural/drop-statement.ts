import type { Edit, EditKind } from './edit.js';
import { statementSites } from './statement-sites.js';
import { ownLines, snippet, splice } from './source.js';

/**
 * Remove one statement from a function: drops a guard, an adjustment or a
 * step of a search. Never the final return of a function (it would answer
 * undefined), a declaration (later uses would throw), or a nested function.
 */
export const dropStatement: EditKind = {
  name: 'drop-statement',
  weight: 1,
  apply(context, rng): Edit | null {
    const sites = statementSites(context).filter(
      (s) => !s.finalReturn && s.statement.type !== 'VariableDeclaration' && s.statement.type !== 'FunctionDeclaration' && s.statement.type !== 'EmptyStatement',
    );
    if (sites.length === 0) return null;
    const site = rng.pick(sites);
    // Take the whole line when the statement has it to itself, so no blank line is left behind.
    const range = ownLines(context.code, site.statement) ?? site.statement;
    return {
      code: splice(context.code, range.start, range.end, ''),
      description: `drop statement ${site.where} (line ${site.line}): ${snippet(context.code, site.statement)}`,
    };
  },
};
