import type { AnyNode } from 'acorn';
import { KNOB_ENUMS } from '../../../policy/index.js';
import { nodesWithAncestors, type Edit, type EditContext, type EditKind } from './edit.js';
import { lineOf, splice, whereOf } from './source.js';

/**
 * Contract-v2 knobs: a string literal that is one of a knob's known values
 * (`'cache-affinity'`, `'lru'`, ...) becomes another value of the same knob.
 * Numbers (weights, thresholds, maxConcurrent) are already moved by
 * perturb-literal. A value known to two knobs is not (no such value today).
 */

/** Each known value -> its siblings (the other values of its knob). */
const SIBLINGS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.values(KNOB_ENUMS).flatMap((values) => values.map((v) => [v, values.filter((w) => w !== v)] as const)),
);

export const swapKnobValue: EditKind = {
  name: 'swap-knob-value',
  weight: 2,
  apply(context, rng): Edit | null {
    const sites = knobValueSites(context);
    if (sites.length === 0) return null;
    const site = rng.pick(sites);
    const to = rng.pick(SIBLINGS.get(site.value)!);
    const quote = site.raw[0] === '"' ? '"' : "'";
    return {
      code: splice(context.code, site.start, site.end, `${quote}${to}${quote}`),
      description: `swap knob value '${site.value}' -> '${to}' ${site.where} (line ${site.line})`,
    };
  },
};

/** String literals that are known knob values, in source order. */
export function knobValueSites(context: Pick<EditContext, 'program'>): { value: string; raw: string; start: number; end: number; where: string; line: number }[] {
  const out: { value: string; raw: string; start: number; end: number; where: string; line: number }[] = [];
  for (const { node, ancestors } of nodesWithAncestors(context.program)) {
    const value = knobString(node);
    if (value === null) continue;
    out.push({ value, raw: (node as { raw?: string }).raw ?? `'${value}'`, start: node.start, end: node.end, where: whereOf(ancestors), line: lineOf(node) });
  }
  return out;
}

function knobString(node: AnyNode): string | null {
  if (node.type !== 'Literal' || typeof node.value !== 'string') return null;
  return SIBLINGS.has(node.value) ? node.value : null;
}
