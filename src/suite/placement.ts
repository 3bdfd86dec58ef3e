import type { MembershipChange, Role } from '../sim/index.js';
import type { SplitCandidate } from './candidates.js';

/**
 * With nodes going down, which node holds which role matters even among nodes
 * of one kind: a static 8P1D whose one decode node is preempted serves
 * nothing for as long as it is away, while the same counts with the decode
 * node on a node that stays up keep serving. So on a cluster with a
 * membership timeline every candidate also gets a second placement: per
 * kind, its minority role on that kind's most available nodes (least time
 * down before `horizon`; ties by node index). Listed after the index-order
 * candidates, so ties still go to those; a placement equal to its
 * candidate's is not repeated.
 */
export function availabilityPlacements(candidates: readonly SplitCandidate[], nodeKinds: readonly string[], membership: readonly MembershipChange[], horizon: number): SplitCandidate[] {
  if (membership.length === 0) return [];
  const down = downSeconds(nodeKinds.length, membership, horizon);
  const out: SplitCandidate[] = [];
  for (const c of candidates) {
    const roles: Role[] = Array<Role>(nodeKinds.length).fill('D');
    c.kinds.forEach((kind, k) => {
      const nodes = nodeKinds.flatMap((x, i) => (x === kind ? [i] : [])).sort((a, b) => down[a]! - down[b]! || a - b);
      const p = c.prefill[k]!;
      const minority: Role = p <= nodes.length - p ? 'P' : 'D';
      const m = Math.min(p, nodes.length - p);
      nodes.forEach((node, rank) => (roles[node] = rank < m ? minority : minority === 'P' ? 'D' : 'P'));
    });
    if (roles.every((r, i) => r === c.roles[i])) continue;
    const p = roles.filter((r) => r === 'P').length;
    const listed: Role = p <= roles.length - p ? 'P' : 'D';
    const nodes = roles.flatMap((r, i) => (r === listed ? [i] : []));
    out.push({ ...c, roles, label: `${c.label}[${listed}=${nodes.join(',')}]` });
  }
  return out;
}

/** Seconds each node spends down in [0, horizon]. */
export function downSeconds(nodes: number, membership: readonly MembershipChange[], horizon: number): number[] {
  const total = Array<number>(nodes).fill(0);
  const since = Array<number | undefined>(nodes).fill(undefined);
  for (const m of [...membership].sort((a, b) => a.at - b.at)) {
    if (m.event === 'down' && since[m.node] === undefined) since[m.node] = m.at;
    if (m.event === 'up' && since[m.node] !== undefined) {
      total[m.node]! += Math.min(m.at, horizon) - Math.min(since[m.node]!, horizon);
      since[m.node] = undefined;
    }
  }
  since.forEach((s, i) => s !== undefined && (total[i]! += Math.max(0, horizon - s)));
  return total;
}
