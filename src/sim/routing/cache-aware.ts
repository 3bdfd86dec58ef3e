import type { PrefillTuning } from '../mechanics.js';
import type { SimNode } from '../node.js';
import type { RequestState } from '../request-state.js';
import { GatewayTree } from './gateway-tree.js';

/**
 * The SGLang model gateway's cache-aware policy, as its PD router runs it for
 * the prefill workers (sgl-project/sglang sgl-router/src/policies/cache_aware.rs):
 *
 * - load: requests the gateway has sent to the worker and whose response has
 *   not ended. In PD mode one load guard covers the prefill and the decode
 *   worker of a request for the whole dual dispatch
 *   (WorkerLoadGuard::new_multi(vec![prefill, decode]) in the PD router), so
 *   a request counts on its prefill worker until its last decoded token, not
 *   only while it is prefilled;
 * - imbalanced (max - min > abs and max > min * rel): the least loaded worker
 *   (first in order on ties), and the prompt still joins its tree;
 * - otherwise the gateway's own tree (gateway-tree.ts), not the worker's
 *   cache: the deepest match's worker if the matched share of the prompt is
 *   above the threshold, else the worker with the smallest tree (most room in
 *   the cache, as the gateway sees it), not the least loaded one.
 *
 * Only under mechanics affinityView 'gateway'. The default, 'cache', scores
 * the nodes' actual caches and queues (cacheAffinityScan, prefill-scan.ts).
 */

/** Gateway state kept across requests: its tree and its per-worker load counts. */
export interface GatewayState {
  tree: GatewayTree;
  /** Per node id: requests routed there whose response has not ended. */
  load: number[];
}

/** A gateway that has routed nothing yet (mechanics affinityView 'gateway'; under 'cache' there is none, so no tree work). */
export function newGatewayState(): GatewayState {
  return { tree: new GatewayTree(), load: [] };
}

/** The request was placed on `node` (first routing, or again after its node stopped prefilling): it now counts there. */
export function gatewayRouted(g: GatewayState, rs: RequestState, node: number): void {
  const load = g.load;
  if (rs.gatewayNode >= 0) load[rs.gatewayNode]!--;
  load[node] = (load[node] ?? 0) + 1;
  rs.gatewayNode = node;
}

/** The request's response ended: its load guard drops. */
export function gatewayDone(g: GatewayState, rs: RequestState): void {
  if (rs.gatewayNode < 0) return;
  g.load[rs.gatewayNode]!--;
  rs.gatewayNode = -1;
}

/** Scratch membership of the accepting nodes, by id. */
let accepting = new Uint8Array(0);

/** The node the gateway picks among `candidates` (accepting prefill, in id order, non-empty). */
export function gatewayCacheAware(rs: RequestState, candidates: readonly SimNode[], now: number, g: GatewayState, tuning: Readonly<PrefillTuning>): SimNode {
  g.tree.maintain(now);
  const blocks = rs.req.blocks;
  let min = Infinity;
  let max = -Infinity;
  let least = candidates[0]!;
  for (const n of candidates) {
    const load = g.load[n.id] ?? 0;
    if (load < min) {
      min = load;
      least = n;
    }
    if (load > max) max = load;
  }
  if (max - min > tuning.affinityBalanceAbs && max > min * tuning.affinityBalanceRel) {
    g.tree.insert(blocks, least.id, now);
    return least;
  }
  let top = 0;
  for (const n of candidates) top = Math.max(top, n.id + 1);
  if (accepting.length < top) accepting = new Uint8Array(top);
  for (const n of candidates) accepting[n.id] = 1;
  const { depth, tenant } = g.tree.prefixMatch(blocks, (t) => t < top && accepting[t] === 1, now);
  for (const n of candidates) accepting[n.id] = 0;
  const rate = blocks.length > 0 ? depth / blocks.length : 0;
  let chosen: SimNode | undefined;
  if (rate > tuning.affinityMatch) chosen = candidates.find((n) => n.id === tenant);
  if (!chosen) {
    chosen = candidates[0]!;
    for (const n of candidates) if (g.tree.size(n.id) < g.tree.size(chosen.id)) chosen = n;
  }
  g.tree.insert(blocks, chosen.id, now);
  return chosen;
}
