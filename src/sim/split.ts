import { InputError } from '../common/errors.js';

export type Role = 'P' | 'D';

/** Parse `4P5D` into per-node roles (prefill nodes first). The total must equal the node count. */
export function parseSplit(split: string, nodeCount: number): Role[] {
  const m = /^\s*(\d+)\s*P\s*(\d+)\s*D\s*$/i.exec(split);
  if (!m) throw new InputError(`split "${split}" is not of the form <n>P<m>D, e.g. 4P5D`, { field: 'split' });
  const p = Number(m[1]);
  const d = Number(m[2]);
  if (p + d !== nodeCount) throw new InputError(`split ${p}P${d}D has ${p + d} nodes but the cluster has ${nodeCount}`, { field: 'split' });
  if (p < 1 || d < 1) throw new InputError(`split ${p}P${d}D needs at least one prefill and one decode node`, { field: 'split' });
  return rolesFor(p, d);
}

export function rolesFor(prefill: number, decode: number): Role[] {
  return [...Array<Role>(prefill).fill('P'), ...Array<Role>(decode).fill('D')];
}

/** `4P5D` for the given roles (down nodes excluded by the caller). */
export function formatSplit(roles: readonly Role[]): string {
  let p = 0;
  for (const r of roles) if (r === 'P') p++;
  return `${p}P${roles.length - p}D`;
}
