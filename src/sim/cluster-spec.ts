import { InputError } from '../common/errors.js';
import type { MembershipChange } from './membership.js';

/**
 * Node kinds given as one kind for every node or one per node (a list, or a
 * comma-separated string), expanded to one per node.
 */
export function expandNodeKinds(spec: string | readonly string[], nodes: number, field = 'nodeKinds'): string[] {
  const kinds = typeof spec === 'string' ? spec.split(',').map((k) => k.trim()) : [...spec];
  if (kinds.length === 1) return Array<string>(nodes).fill(kinds[0]!);
  if (kinds.length !== nodes) throw new InputError(`${kinds.length} node kinds given for ${nodes} nodes`, { field });
  return kinds;
}

/** Every membership change must name a node of the cluster. */
export function checkMembership(membership: readonly MembershipChange[], nodes: number, field = 'membership'): void {
  for (const m of membership) {
    if (m.node >= nodes) throw new InputError(`membership change names node ${m.node} but the cluster has ${nodes} nodes`, { field });
  }
}
