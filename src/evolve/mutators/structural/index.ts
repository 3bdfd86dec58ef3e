import type { Rng } from '../../../common/rng.js';
import { MutationFailed } from '../errors.js';
import { checkPolicy } from '../policy-shape.js';
import type { MutationInput, MutationOutput, Mutator } from '../types.js';
import type { EditContext, EditKind } from './edit.js';
import { dropStatement } from './drop-statement.js';
import { duplicateStatement } from './duplicate-statement.js';
import { flipComparison } from './flip-comparison.js';
import { perturbLiteral } from './perturb-literal.js';
import { headroomSites, prefillHeadroomEdit } from './prefill-headroom.js';
import { shiftComparison } from './shift-comparison.js';
import { splitByKindEdit, splitSites } from './split-by-kind.js';
import { swapFunction } from './swap-function.js';
import { knobValueSites, swapKnobValue } from './swap-knob-value.js';

/** In the order the rng indexes them: changing it changes which edit a seed gives. */
const EDIT_KINDS: readonly EditKind[] = [perturbLiteral, shiftComparison, flipComparison, swapFunction, dropStatement, duplicateStatement];
/**
 * Drawn only when the code names a knob value (contract v2), so code without
 * one is mutated exactly as before the kind existed (same rng, same edit).
 */
const KNOB_KINDS: readonly EditKind[] = [swapKnobValue];
/**
 * Drawn only when the code has a splitToRoles / splitByKind call to switch,
 * after the others, so code without one is mutated exactly as before the
 * kind existed. Code with one (every seed) draws differently from then on.
 */
const SPLIT_KINDS: readonly EditKind[] = [splitByKindEdit];
/**
 * Drawn only when the code has a predictThroughput / predictWithHeadroom call
 * to switch, after the split kinds, so code without one is mutated exactly as
 * before the kind existed.
 */
const HEADROOM_KINDS: readonly EditKind[] = [prefillHeadroomEdit];

/** Edits a rejected result may be retried with before the mutation gives up. */
const SPARE_ATTEMPTS = 8;

export interface StructuralOptions {
  /** Most edits in one mutation (default 2); the count is drawn uniformly from 1..maxEdits. */
  maxEdits?: number;
}

/**
 * The mutator that needs no network: 1..maxEdits seeded edits of the parent's
 * source, each re-parsed and checked to still declare both contract
 * functions before the next edit builds on it. Same input, same rng seed,
 * same output.
 */
export function createStructuralMutator(options: StructuralOptions = {}): Mutator {
  const maxEdits = options.maxEdits ?? 2;
  if (!Number.isInteger(maxEdits) || maxEdits < 1) throw new RangeError(`maxEdits must be a positive integer, got ${maxEdits}`);
  return {
    name: 'structural',
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      if (signal?.aborted) throw new MutationFailed('aborted', 'aborted before it started', { mutator: 'structural' });
      const code = mutateSource(input, input.rng.int(1, maxEdits));
      return { ...code, model: null, promptTokens: null, completionTokens: null, mutator: 'structural' };
    },
  };
}

function mutateSource(input: MutationInput, wanted: number): { code: string; editSummary: string } {
  const parent = checkPolicy(input.parent.code);
  if (!parent.ok) throw new MutationFailed('parse', `parent #${input.parent.id} ${parent.message}`, { mutator: 'structural' });
  let context: EditContext = { code: input.parent.code, program: parent.program, inspirations: input.inspirations };
  const descriptions: string[] = [];
  let rejected: string | null = null;
  for (let attempt = 0; descriptions.length < wanted && attempt < wanted + SPARE_ATTEMPTS; attempt++) {
    const edit = applyOneEdit(context, input.rng);
    if (!edit) break; // nothing in this code can be edited at all
    const check = checkPolicy(edit.code);
    if (!check.ok) {
      rejected = `${edit.description}: result ${check.message}`;
      continue;
    }
    // An edit that undoes the earlier ones (> to >= and back) is no step: try another.
    if (edit.code === input.parent.code) {
      rejected = `${edit.description}: undoes the earlier edits`;
      continue;
    }
    context = { ...context, code: edit.code, program: check.program };
    descriptions.push(edit.description);
  }
  if (descriptions.length === 0) {
    if (rejected) throw new MutationFailed('parse', `every edit tried was rejected, last: ${rejected}`, { mutator: 'structural' });
    throw new MutationFailed('no-edit', `parent #${input.parent.id} has nothing a structural edit applies to`, { mutator: 'structural' });
  }
  // Two edits can undo each other (> to >= and back): that is no candidate.
  if (context.code === input.parent.code) throw new MutationFailed('no-edit', `the edits cancelled out: ${descriptions.join('; ')}`, { mutator: 'structural' });
  return { code: context.code, editSummary: descriptions.join('; ') };
}

/** Draw edit kinds by weight until one applies: a kind with no site in this code is not drawn again. */
function applyOneEdit(context: EditContext, rng: Rng): { code: string; description: string } | null {
  const left = [...EDIT_KINDS];
  if (knobValueSites(context).length > 0) left.push(...KNOB_KINDS);
  if (splitSites(context).length > 0) left.push(...SPLIT_KINDS);
  if (headroomSites(context).length > 0) left.push(...HEADROOM_KINDS);
  while (left.length > 0) {
    const kind = pickWeighted(left, rng);
    const edit = kind.apply(context, rng);
    // An edit that changes nothing (e.g. a swap with identical text) is no edit.
    if (edit && edit.code !== context.code) return edit;
    left.splice(left.indexOf(kind), 1);
  }
  return null;
}

function pickWeighted(kinds: readonly EditKind[], rng: Rng): EditKind {
  const total = kinds.reduce((sum, k) => sum + k.weight, 0);
  let x = rng.next() * total;
  for (const kind of kinds) {
    x -= kind.weight;
    if (x < 0) return kind;
  }
  return kinds[kinds.length - 1]!;
}
