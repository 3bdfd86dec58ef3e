import type { Edit, EditKind } from './edit.js';
import { statementSites } from './statement-sites.js';
import { ownLines, snippet, splice } from './source.js';

/** Statements whose copy right after them can never run or would not parse. */
const NOT_DUPLICATED = new Set(['ReturnStatement', 'ThrowStatement', 'BreakStatement', 'ContinueStatement', 'VariableDeclaration', 'FunctionDeclaration', 'EmptyStatement']);

/**
 * Repeat one statement of a function right after itself: applies an update
 * twice (a doubled step, a second smoothing pass) or repeats a guard.
 */
export const duplicateStatement: EditKind = {
  name: 'duplicate-statement',
  weight: 0.5,
  apply(context, rng): Edit | null {
    const sites = statementSites(context).filter((s) => !NOT_DUPLICATED.has(s.statement.type));
    if (sites.length === 0) return null;
    const site = rng.pick(sites);
    const text = context.code.slice(site.statement.start, site.statement.end);
    const lines = ownLines(context.code, site.statement);
    let code: string;
    if (lines) {
      // On its own line(s): the copy goes on the next line, with the same indent.
      const lastLine = lines.end === context.code.length && !context.code.endsWith('\n');
      code = splice(context.code, lines.end, lines.end, lastLine ? '\n' + lines.indent + text : lines.indent + text + '\n');
    } else {
      code = splice(context.code, site.statement.end, site.statement.end, ' ' + text);
    }
    return { code, description: `duplicate statement ${site.where} (line ${site.line}): ${snippet(context.code, site.statement)}` };
  },
};
