import type { AnyNode, CallExpression, Pattern, Program } from 'acorn';
import { nodesWithAncestors, type Edit, type EditContext, type EditKind } from './edit.js';
import { lineOf, snippet, splice, whereOf } from './source.js';

/**
 * Node placement: every call `splitToRoles(a, b)` becomes
 * `splitByKind(a, b, ctx)`, or every `splitByKind(a, b, ...)` goes back to
 * `splitToRoles(a, b)` (the direction drawn when the code has calls of
 * both). Both stdlib functions give the same count of prefill nodes;
 * splitByKind chooses them by node kind (comparative advantage), which
 * changes nothing on one kind of hardware and is worth about 9 % to greedy on
 * the hetero scenario (docs/evolution.md). All calls at once, because a
 * policy places nodes in several places (the split it plans from, the one it
 * returns): switching one leaves them disagreeing, and greedy with one of its
 * three calls switched makes 153 transitions on hetero against 69 with all
 * three. No other edit can make this change: it needs a new name and a new
 * argument. It sets no plan knob, so it belongs to the roles-only contract
 * too.
 *
 * `ctx` is the first parameter of the top-level function around the call.
 * A site is skipped when there is none, when a function nested in between
 * rebinds that name, or when the nodes argument is `Y.nodes` of another name
 * Y (then the first parameter is evidently not the ctx). A policy that
 * declares its own function of the target name gets no site: the call would
 * go to its function, not the stdlib's.
 */
export const splitByKindEdit: EditKind = {
  name: 'split-by-kind',
  // Modest: on a one-kind cluster the child behaves exactly as its parent, and
  // the mutator cannot tell the clusters apart; a toggle needs few tries.
  weight: 0.5,
  apply(context, rng): Edit | null {
    const sites = splitSites(context);
    if (sites.length === 0) return null;
    const to = rng.pick([...new Set(sites.map((s) => s.to))]);
    const chosen = sites.filter((s) => s.to === to);
    let code = context.code;
    // From the end, so that earlier offsets stay valid.
    for (const site of [...chosen].reverse()) code = splice(code, site.start, site.end, site.text);
    const calls = chosen.length === 1 ? `${chosen[0]!.from} -> ${to} ${chosen[0]!.where}` : `${chosen.length} calls -> ${to}`;
    return {
      code,
      description: `split by ${to === 'splitByKind' ? 'kind' : 'load'}: ${calls} (line ${chosen.map((s) => s.line).join(', ')})`,
    };
  },
};

export interface SplitSite {
  start: number;
  end: number;
  /** The call as it will read. */
  text: string;
  /** The call as it reads, shortened, for the description. */
  from: string;
  to: 'splitByKind' | 'splitToRoles';
  where: string;
  line: number;
}

/** Every call the edit can switch, in source order. */
export function splitSites(context: Pick<EditContext, 'code' | 'program'>): SplitSite[] {
  const declared = topLevelNames(context.program);
  const out: SplitSite[] = [];
  for (const { node, ancestors } of nodesWithAncestors(context.program)) {
    if (node.type !== 'CallExpression' || node.optional || node.callee.type !== 'Identifier') continue;
    if (node.arguments.some((a) => a.type === 'SpreadElement')) continue;
    const [a, b] = node.arguments;
    const name = node.callee.name;
    const site = { start: node.start, end: node.end, from: snippet(context.code, node, 40), where: whereOf(ancestors), line: lineOf(node) };
    const args = a && b ? context.code.slice(a.start, b.end) : '';
    if (name === 'splitToRoles' && node.arguments.length === 2 && !declared.has('splitByKind')) {
      const ctx = ctxName(node, ancestors);
      if (ctx !== null) out.push({ ...site, to: 'splitByKind', text: `splitByKind(${args}, ${ctx})` });
    } else if (name === 'splitByKind' && (node.arguments.length === 3 || node.arguments.length === 4) && !declared.has('splitToRoles')) {
      out.push({ ...site, to: 'splitToRoles', text: `splitToRoles(${args})` });
    }
  }
  return out;
}

/** The name of the ctx a splitToRoles call can pass on, or null (see the file comment). */
function ctxName(call: CallExpression, ancestors: readonly AnyNode[]): string | null {
  const top = ancestors[1];
  if (top?.type !== 'FunctionDeclaration') return null;
  const first = top.params[0];
  if (first?.type !== 'Identifier') return null;
  const name = first.name;
  for (const between of ancestors.slice(2, -1)) {
    if (between.type !== 'FunctionExpression' && between.type !== 'ArrowFunctionExpression' && between.type !== 'FunctionDeclaration') continue;
    if (between.params.some((p) => boundNames(p).includes(name))) return null;
  }
  const nodes = call.arguments[1];
  if (nodes?.type === 'MemberExpression' && nodes.object.type === 'Identifier' && nodes.object.name !== name) return null;
  return name;
}

/** The names a parameter pattern binds. */
function boundNames(p: Pattern): string[] {
  switch (p.type) {
    case 'Identifier':
      return [p.name];
    case 'AssignmentPattern':
      return boundNames(p.left);
    case 'RestElement':
      return boundNames(p.argument);
    case 'ArrayPattern':
      return p.elements.flatMap((e) => (e ? boundNames(e) : []));
    case 'ObjectPattern':
      return p.properties.flatMap((q) => (q.type === 'RestElement' ? boundNames(q.argument) : boundNames(q.value)));
    default:
      return [];
  }
}

/** Top-level functions and plain variables: a policy's own splitToRoles or splitByKind. */
export function topLevelNames(program: Program): Set<string> {
  const names = new Set<string>();
  for (const s of program.body) {
    if (s.type === 'FunctionDeclaration' && s.id) names.add(s.id.name);
    if (s.type === 'VariableDeclaration') for (const d of s.declarations) for (const n of boundNames(d.id)) names.add(n);
  }
  return names;
}
