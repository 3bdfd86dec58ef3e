import type { Program } from 'acorn';
import { nodesWithAncestors, type Edit, type EditContext, type EditKind } from './edit.js';
import { lineOf, snippet, splice, whereOf } from './source.js';
import { topLevelNames } from './split-by-kind.js';

/** The spare prefill nodes a new predictWithHeadroom call starts from; tune and the literal edit move it (docs/gap-study.md). */
export const START_SPARE_NODES = 0.5;
/** The top-level constant every switched call reads, so that one literal sets them all. */
export const SPARE_NAME = 'PREFILL_SPARE_NODES';

/**
 * Prefill headroom: every call `predictThroughput(a, b[, c])` becomes
 * `predictWithHeadroom(a, b, c, PREFILL_SPARE_NODES)` (c `undefined` when
 * absent) and `const PREFILL_SPARE_NODES = 0.5;` goes before the first
 * top-level statement (unless the code declares it already); or every
 * `predictWithHeadroom(a, b, c, h)` goes back to `predictThroughput(a, b, c)`,
 * and the constant goes too when nothing else reads it (the direction drawn
 * when the code has calls of both). The constant's literal is one the tune
 * mutator and the literal edit then move, one number for every call. Both functions rank
 * splits by the same phase capacities; predictWithHeadroom holds h prefill
 * nodes' worth of capacity back, so a planner keeps a small prefill phase
 * from running at full load (docs/gap-study.md has the figures).
 * All calls at once and one constant, because a planner compares the split
 * in force with its candidates: scoring them with different headroom biases
 * the comparison rather than the split. No other edit can make this change: it
 * needs a new name and a new argument. It sets no plan knob, so it belongs to
 * the roles-only contract too.
 *
 * A policy that declares its own function of the target name gets no site.
 */
export const prefillHeadroomEdit: EditKind = {
  name: 'prefill-headroom',
  weight: 0.5,
  apply(context, rng): Edit | null {
    const sites = headroomSites(context);
    if (sites.length === 0) return null;
    const to = rng.pick([...new Set(sites.map((s) => s.to))]);
    const chosen = sites.filter((s) => s.to === to);
    let code = context.code;
    for (const site of [...chosen].reverse()) code = splice(code, site.start, site.end, site.text);
    // The constant is before every call: spliced last, so the calls' offsets held.
    const declaration = spareDeclaration(context.program);
    if (to === 'predictWithHeadroom' && !topLevelNames(context.program).has(SPARE_NAME)) {
      const first = context.program.body[0]!.start;
      code = splice(code, first, first, `const ${SPARE_NAME} = ${START_SPARE_NODES};\n\n`);
    } else if (to === 'predictThroughput' && declaration && spareReads(context) === chosen.filter((s) => s.readsSpare).length) {
      const after = /^\n*/.exec(code.slice(declaration.end))![0].length;
      code = splice(code, declaration.start, declaration.end + after, '');
    }
    const calls = chosen.length === 1 ? `${chosen[0]!.from} -> ${to} ${chosen[0]!.where}` : `${chosen.length} calls -> ${to}`;
    return {
      code,
      description: `prefill headroom ${to === 'predictWithHeadroom' ? `on (${SPARE_NAME})` : 'off'}: ${calls} (line ${chosen.map((s) => s.line).join(', ')})`,
    };
  },
};

/** The top-level `const PREFILL_SPARE_NODES = ...;` alone in its declaration, or null. */
function spareDeclaration(program: Program): { start: number; end: number } | null {
  for (const st of program.body) {
    if (st.type !== 'VariableDeclaration' || st.declarations.length !== 1) continue;
    const id = st.declarations[0]!.id;
    if (id.type === 'Identifier' && id.name === SPARE_NAME) return { start: st.start, end: st.end };
  }
  return null;
}

/** How many times the code reads the constant (its declaration not counted). */
function spareReads(context: Pick<EditContext, 'program'>): number {
  let n = 0;
  for (const { node, ancestors } of nodesWithAncestors(context.program)) {
    if (node.type !== 'Identifier' || node.name !== SPARE_NAME) continue;
    const parent = ancestors[ancestors.length - 2];
    if (parent?.type === 'VariableDeclarator' && parent.id === node) continue;
    n++;
  }
  return n;
}

export interface HeadroomSite {
  start: number;
  end: number;
  text: string;
  from: string;
  to: 'predictWithHeadroom' | 'predictThroughput';
  where: string;
  line: number;
  /** A call back to predictThroughput whose dropped argument is the constant. */
  readsSpare: boolean;
}

/** Every call the edit can switch, in source order. */
export function headroomSites(context: Pick<EditContext, 'code' | 'program'>): HeadroomSite[] {
  const declared = topLevelNames(context.program);
  const out: HeadroomSite[] = [];
  for (const { node, ancestors } of nodesWithAncestors(context.program)) {
    if (node.type !== 'CallExpression' || node.optional || node.callee.type !== 'Identifier') continue;
    if (node.arguments.some((a) => a.type === 'SpreadElement')) continue;
    const args = node.arguments.map((a) => context.code.slice(a.start, a.end));
    const site = { start: node.start, end: node.end, from: snippet(context.code, node, 40), where: whereOf(ancestors), line: lineOf(node) };
    const name = node.callee.name;
    if (name === 'predictThroughput' && (args.length === 2 || args.length === 3) && !declared.has('predictWithHeadroom')) {
      const w = args[2] ?? 'undefined';
      out.push({ ...site, to: 'predictWithHeadroom', text: `predictWithHeadroom(${args[0]}, ${args[1]}, ${w}, ${SPARE_NAME})`, readsSpare: false });
    } else if (name === 'predictWithHeadroom' && args.length === 4 && !declared.has('predictThroughput')) {
      const keep = args[2] === 'undefined' ? args.slice(0, 2) : args.slice(0, 3);
      out.push({ ...site, to: 'predictThroughput', text: `predictThroughput(${keep.join(', ')})`, readsSpare: args[3] === SPARE_NAME });
    }
  }
  return out;
}
