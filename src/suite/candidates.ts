import { InputError } from '../common/errors.js';
import type { Role } from '../sim/index.js';

/**
 * One static split the oracles try. On a cluster of one node kind it is
 * `pP(N-p)D` with the first p nodes prefill (as `parseSplit` assigns roles).
 * On a mixed cluster it is a prefill count per kind: nodes of one kind are
 * taken as interchangeable, so the first `prefill[k]` nodes of kind k (by
 * node index) run prefill and the rest of that kind decode.
 */
export interface SplitCandidate {
  /** `4P5D`, or per kind in order of first appearance: `gb300:3P2D+h200:1P3D`. */
  label: string;
  roles: Role[];
  /** Prefill nodes per kind, in the order of `kinds`. */
  prefill: number[];
  kinds: string[];
}

/** More candidates than this is a cluster the oracles would take hours on: refuse it. */
export const MAX_CANDIDATES = 256;

/**
 * Every split with at least one prefill and one decode node overall: the
 * product over kinds of 0..n_k prefill nodes, minus all-P and all-D. For one
 * kind that is 1P..(N-1)P.
 */
export function splitCandidates(nodeKinds: readonly string[]): SplitCandidate[] {
  if (nodeKinds.length < 2) throw new InputError(`a cluster of ${nodeKinds.length} node(s) has no split with both a prefill and a decode node`, { field: 'nodeKinds' });
  const kinds = [...new Set(nodeKinds)];
  const nodesOf = kinds.map((k) => nodeKinds.flatMap((kind, i) => (kind === k ? [i] : [])));
  const count = nodesOf.reduce((n, list) => n * (list.length + 1), 1) - 2;
  if (count > MAX_CANDIDATES) throw new InputError(`the cluster's ${kinds.length} node kinds give ${count} candidate splits, more than ${MAX_CANDIDATES}`, { field: 'nodeKinds' });
  const out: SplitCandidate[] = [];
  const prefill = kinds.map(() => 0);
  const visit = (k: number): void => {
    if (k === kinds.length) {
      const p = prefill.reduce((s, x) => s + x, 0);
      if (p >= 1 && p <= nodeKinds.length - 1) out.push(candidate(kinds, nodesOf, [...prefill], nodeKinds.length));
      return;
    }
    for (let x = 0; x <= nodesOf[k]!.length; x++) {
      prefill[k] = x;
      visit(k + 1);
    }
  };
  visit(0);
  // Fewest prefill nodes first, then by kind order: a stable, readable order (and the tie-break of the oracle).
  return out.sort((a, b) => sum(a.prefill) - sum(b.prefill) || compareLists(a.prefill, b.prefill));
}

function candidate(kinds: string[], nodesOf: number[][], prefill: number[], nodes: number): SplitCandidate {
  const roles: Role[] = Array<Role>(nodes).fill('D');
  nodesOf.forEach((list, k) => list.slice(0, prefill[k]).forEach((i) => (roles[i] = 'P')));
  const label =
    kinds.length === 1
      ? `${prefill[0]}P${nodes - prefill[0]!}D`
      : kinds.map((kind, k) => `${kind}:${prefill[k]}P${nodesOf[k]!.length - prefill[k]!}D`).join('+');
  return { label, roles, prefill, kinds };
}

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

function compareLists(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i]! - a[i]!;
  return 0;
}
