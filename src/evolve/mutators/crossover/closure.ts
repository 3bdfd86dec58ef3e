import type { AnyNode, ModuleDeclaration, Program, Statement } from 'acorn';
import { fullAncestor } from 'acorn-walk';

type TopLevel = Statement | ModuleDeclaration;

/** Names a top-level statement declares: functions, classes, `const x`/`let x`/`var x`. */
export function declaredNames(statement: TopLevel): string[] {
  if ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && statement.id) return [statement.id.name];
  if (statement.type === 'VariableDeclaration') return statement.declarations.flatMap((d) => (d.id.type === 'Identifier' ? [d.id.name] : []));
  return [];
}

/**
 * Identifier nodes that are names (not property keys `a.b`, `{b: 1}`), with
 * their positions: what a rename rewrites and what a closure follows.
 */
export function nameNodes(node: AnyNode): { name: string; start: number; end: number }[] {
  const out: { name: string; start: number; end: number }[] = [];
  fullAncestor(node, (n, _s, ancestors) => {
    if (n.type !== 'Identifier') return;
    const parent = ancestors[ancestors.length - 2];
    if (parent?.type === 'MemberExpression' && parent.property === n && !parent.computed) return;
    if (parent?.type === 'Property' && parent.key === n && !parent.computed && !parent.shorthand) return;
    if ((parent?.type === 'MethodDefinition' || parent?.type === 'PropertyDefinition') && parent.key === n && !parent.computed) return;
    out.push({ name: n.name, start: n.start, end: n.end });
  });
  return out;
}

/**
 * The top-level statements a root function needs, transitively (its helpers
 * and the constants they read), the root included, in source order. Names
 * read are over-approximated (a local that shares a top-level name pulls that
 * declaration in): at worst an unused helper comes along.
 */
export function closureOf(program: Program, root: string): TopLevel[] {
  const byName = new Map<string, TopLevel>();
  for (const statement of program.body) for (const name of declaredNames(statement)) byName.set(name, statement);
  const taken = new Set<TopLevel>();
  const queue = [root];
  while (queue.length > 0) {
    const statement = byName.get(queue.shift()!);
    if (!statement || taken.has(statement)) continue;
    taken.add(statement);
    for (const n of nameNodes(statement as AnyNode)) queue.push(n.name);
  }
  return [...taken].sort((a, b) => a.start - b.start);
}

/** A statement's text with names renamed (every name node of it, declarations included). */
export function renamed(code: string, statement: TopLevel, renames: ReadonlyMap<string, string>): string {
  const hits = nameNodes(statement as AnyNode).filter((n) => renames.has(n.name)).sort((a, b) => b.start - a.start);
  let text = code.slice(statement.start, statement.end);
  for (const h of hits) text = text.slice(0, h.start - statement.start) + renames.get(h.name)! + text.slice(h.end - statement.start);
  return text;
}
