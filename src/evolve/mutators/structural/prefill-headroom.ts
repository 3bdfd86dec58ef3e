import { nodesWithAncestors, type Edit, type EditContext, type EditKind } from './edit.js';
import { lineOf, snippet, splice, whereOf } from './source.js';
import { topLevelNames } from './split-by-kind.js';

/** The spare prefill nodes a new predictWithHeadroom call starts from; tune and the literal edit move it (docs/gap-study.md). */
export const START_SPARE_NODES = 0.5;

/**
 * Prefill headroom: every call `predictThroughput(a, b[, c])` becomes
 * `predictWithHeadroom(a, b, c, 0.5)` (c `undefined` when absent), or every
 * `predictWithHeadroom(a, b, c, h)` goes back to `predictThroughput(a, b, c)`
 * (the direction drawn when the code has calls of both). The new literal is
 * one the tune mutator and the literal edit then move. Both functions rank
 * splits by the same phase capacities; predictWithHeadroom holds h prefill
 * nodes' worth of capacity back, so a planner keeps a small prefill phase
 * from running at full load (docs/gap-study.md has the figures).
 * All calls at once, because a planner compares the split in force with its
 * candidates: scoring one with headroom and the other without biases the
 * comparison rather than the split. No other edit can make this change: it
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
    const calls = chosen.length === 1 ? `${chosen[0]!.from} -> ${to} ${chosen[0]!.where}` : `${chosen.length} calls -> ${to}`;
    return {
      code,
      description: `prefill headroom ${to === 'predictWithHeadroom' ? `at ${START_SPARE_NODES}` : 'off'}: ${calls} (line ${chosen.map((s) => s.line).join(', ')})`,
    };
  },
};

export interface HeadroomSite {
  start: number;
  end: number;
  text: string;
  from: string;
  to: 'predictWithHeadroom' | 'predictThroughput';
  where: string;
  line: number;
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
      out.push({ ...site, to: 'predictWithHeadroom', text: `predictWithHeadroom(${args[0]}, ${args[1]}, ${w}, ${START_SPARE_NODES})` });
    } else if (name === 'predictWithHeadroom' && args.length === 4 && !declared.has('predictThroughput')) {
      const keep = args[2] === 'undefined' ? args.slice(0, 2) : args.slice(0, 3);
      out.push({ ...site, to: 'predictThroughput', text: `predictThroughput(${keep.join(', ')})` });
    }
  }
  return out;
}
