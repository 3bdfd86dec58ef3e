import type { AnyNode, AssignmentProperty, ObjectExpression, Program, Property } from 'acorn';
import type { Rng } from '../../../common/rng.js';
import { KNOB_ENUMS } from '../../../policy/index.js';
import { nodesWithAncestors, type Edit, type EditContext, type EditKind } from './edit.js';
import { lineOf } from './source.js';

/**
 * Contract-v2 knob insertion: adds one plan field the parent's returned plan
 * does not set. The other edits only move what the code already says (a
 * literal, an operator, a knob value), so without this one a lineage whose
 * seeds set no knob could never come to use one.
 *
 * The plan is an object literal with a `roles` key returned by `schedule`
 * itself (not by a helper, whose `{roles, ...}` may be an intermediate
 * value). The field goes into every such return that lacks it, so that the
 * policy sets it on every plan it makes (a knob left out of a plan keeps the
 * setting in force, so one return would do, but the edit says what it means
 * on every path). An enum field takes a value drawn by the rng; a number a
 * small sensible value (the others then move it: perturb-literal, tune).
 * The predicted-TTFT and cache-affinity weights are not inserted: at their
 * defaults they change nothing, and they only act under their own router.
 */
export interface InsertableKnob {
  group: 'routing' | 'eviction' | 'transitions' | 'batching';
  key: string;
  values: readonly (string | number)[];
}

/** In the order the rng indexes them: changing it changes which edit a seed gives. */
export const INSERTABLE_KNOBS: readonly InsertableKnob[] = [
  { group: 'routing', key: 'prefill', values: KNOB_ENUMS['routing.prefill']! },
  { group: 'routing', key: 'decode', values: KNOB_ENUMS['routing.decode']! },
  { group: 'eviction', key: 'order', values: KNOB_ENUMS['eviction.order']! },
  { group: 'eviction', key: 'protectWaiting', values: KNOB_ENUMS['eviction.protectWaiting']! },
  // 1 serialises switches, 2 lets a pair overlap; unset (the default) is no limit.
  { group: 'transitions', key: 'maxConcurrent', values: [1, 2] },
  // Below the GB300/GB200 engine chunk of 16,384 tokens (a larger value is capped there and changes nothing).
  { group: 'batching', key: 'maxPrefillTokens', values: [4096, 8192] },
];

/** Where one knob can go in one returned plan: the text to insert at `at`. */
interface Insertion {
  at: number;
  text: string;
  line: number;
}

export const insertKnob: EditKind = {
  name: 'insert-knob',
  weight: 1,
  apply(context: EditContext, rng: Rng): Edit | null {
    const open = openKnobs(context.program);
    if (open.length === 0) return null;
    const knob = rng.pick(open);
    return knobEdit(context, knob, rng.pick(knob.values));
  },
};

/** The knobs some plan `schedule` returns lacks, in INSERTABLE_KNOBS order (what the edit draws from). */
export function openKnobs(program: Program): InsertableKnob[] {
  const plans = returnedPlans(program);
  return INSERTABLE_KNOBS.filter((knob) => plans.some((plan) => insertionPoint(plan, knob) !== null));
}

/**
 * Every (knob, value) the edit can make of this program, knob by knob in
 * INSERTABLE_KNOBS order and value by value in enum order (knob-search
 * replays them all instead of drawing one).
 */
export function knobPairs(program: Program): { knob: InsertableKnob; value: string | number }[] {
  return openKnobs(program).flatMap((knob) => knob.values.map((value) => ({ knob, value })));
}

/**
 * Whether the program names plan group `group` anywhere: as a property key,
 * a member (`x.routing`), or a spread into a returned plan (which may carry
 * it). When it does not, the policy never changes that group's knobs, so the
 * setting a run starts with holds throughout and inserting that very value
 * is no change at all (knob-search skips such a pair). Conservative: a read
 * such as `ctx.mechanics.routing` counts as naming it.
 */
export function namesGroup(program: Program, group: InsertableKnob['group']): boolean {
  if (returnedPlans(program).some((plan) => plan.properties.some((p) => p.type === 'SpreadElement'))) return true;
  for (const { node } of nodesWithAncestors(program)) {
    if (node.type === 'Property' && !node.computed && keyName(node) === group) return true;
    // acorn-walk visits a destructuring pattern's values, not its properties.
    if (node.type === 'ObjectPattern' && node.properties.some((p) => p.type === 'Property' && !p.computed && keyName(p) === group)) return true;
    if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier' && node.property.name === group) return true;
  }
  return false;
}

/** The edit that inserts `knob` = `value` into every plan `schedule` returns that lacks it (`knob` must be open). */
export function knobEdit(context: Pick<EditContext, 'code' | 'program'>, knob: InsertableKnob, value: string | number): Edit {
  const literal = typeof value === 'string' ? `'${value}'` : String(value);
  const insertions = returnedPlans(context.program).flatMap((plan) => {
    const point = insertionPoint(plan, knob);
    return point === null ? [] : [{ at: point.at, line: lineOf(plan), text: point.text(literal) }];
  });
  return {
    code: insertAll(context.code, insertions),
    description: `insert knob ${knob.group}.${knob.key} = ${literal} in schedule's plan (line ${insertions.map((i) => i.line).join(', ')})`,
  };
}

/** The object literals with a `roles` key that `schedule` returns (not a function nested in it), in source order. */
export function returnedPlans(program: Program): ObjectExpression[] {
  const out: ObjectExpression[] = [];
  for (const { node, ancestors } of nodesWithAncestors(program)) {
    if (node.type !== 'ReturnStatement' || node.argument?.type !== 'ObjectExpression') continue;
    const top = ancestors[1];
    if (top?.type !== 'FunctionDeclaration' || top.id?.name !== 'schedule') continue;
    // The innermost function around the return must be schedule itself.
    const inner = ancestors.slice(0, -1).reverse().find(isFunction);
    if (inner !== top) continue;
    if (property(node.argument, 'roles')) out.push(node.argument);
  }
  return out;
}

/** Where `knob` goes in `plan`, or null when the plan sets it or its group is not an object literal there. */
function insertionPoint(plan: ObjectExpression, knob: InsertableKnob): { at: number; text: (literal: string) => string } | null {
  const group = property(plan, knob.group);
  if (!group) return { at: afterLast(plan), text: (v) => `, ${knob.group}: { ${knob.key}: ${v} }` };
  if (group.value.type !== 'ObjectExpression') return null;
  const inner = group.value;
  if (property(inner, knob.key)) return null;
  if (inner.properties.length === 0) return { at: inner.start + 1, text: (v) => ` ${knob.key}: ${v} ` };
  return { at: afterLast(inner), text: (v) => `, ${knob.key}: ${v}` };
}

function afterLast(object: ObjectExpression): number {
  return object.properties[object.properties.length - 1]!.end;
}

/** A plain (non-computed) property of an object literal by name. */
function property(object: ObjectExpression, name: string): Property | null {
  for (const p of object.properties) {
    if (p.type !== 'Property' || p.computed) continue;
    if (keyName(p) === name) return p;
  }
  return null;
}

function keyName(p: Property | AssignmentProperty): string | null {
  return p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : null;
}

function isFunction(node: AnyNode): boolean {
  return node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';
}

/** Insert from the end so that earlier offsets stay valid. */
function insertAll(code: string, insertions: readonly Insertion[]): string {
  let out = code;
  for (const i of [...insertions].sort((a, b) => b.at - a.at)) out = out.slice(0, i.at) + i.text + out.slice(i.at);
  return out;
}
