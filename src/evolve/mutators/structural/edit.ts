import type { AnyNode, Program } from 'acorn';
import { fullAncestor } from 'acorn-walk';
import type { Rng } from '../../../common/rng.js';
import type { ScoredPolicy } from '../types.js';

/** What an edit works on: the current code (earlier edits of this mutation applied) and its AST. */
export interface EditContext {
  code: string;
  program: Program;
  inspirations: readonly ScoredPolicy[];
}

/** An applied edit: the whole new code and one line saying what changed. */
export interface Edit {
  code: string;
  description: string;
}

/**
 * One kind of structural edit. `apply` lists its sites in source order (so the
 * same rng picks the same site) and returns null when the code has none.
 */
export interface EditKind {
  readonly name: string;
  /** Relative chance of being tried first. */
  readonly weight: number;
  apply(context: EditContext, rng: Rng): Edit | null;
}

/** Every node with its ancestors (Program first, the node last), in source order. */
export function nodesWithAncestors(program: Program): { node: AnyNode; ancestors: AnyNode[] }[] {
  const out: { node: AnyNode; ancestors: AnyNode[] }[] = [];
  // acorn-walk reuses the ancestors array, so each visit keeps a copy.
  fullAncestor(program, (node, _state, ancestors) => out.push({ node, ancestors: ancestors.slice() }));
  return out;
}
