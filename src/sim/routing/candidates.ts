import { acceptance, type SimNode } from '../node.js';

/**
 * The nodes that accept prefill and those that accept decode, in id order,
 * kept between requests: routing used to filter every node of the cluster
 * per request (the whole cluster per arrival and per hand-off). The lists are
 * rebuilt only when some node's status, role or bothPhases changed since
 * (acceptance.epoch, bumped by SimNode's setters), so they always equal
 * `nodes.filter((n) => n.acceptsPrefill)` (and the decode counterpart).
 */
interface Lists {
  epoch: number;
  prefill: SimNode[];
  /** The ids of `prefill`, for passes over the match arrays. */
  prefillIds: Int32Array;
  /** The ids of `prefill` as node bits (32 per word), for passes over sparse matches (match-classes.ts). */
  prefillMask: Int32Array;
  /** Every node of `prefill` has the same kind, engine model and prefill batch limit. */
  prefillUniform: boolean;
  decode: SimNode[];
}

const cache = new WeakMap<readonly SimNode[], Lists>();

function lists(nodes: readonly SimNode[]): Lists {
  let l = cache.get(nodes);
  if (!l) cache.set(nodes, (l = { epoch: -1, prefill: [], prefillIds: new Int32Array(0), prefillMask: new Int32Array(0), prefillUniform: true, decode: [] }));
  if (l.epoch !== acceptance.epoch) {
    l.prefill = nodes.filter((n) => n.acceptsPrefill);
    l.prefillIds = Int32Array.from(l.prefill, (n) => n.id);
    l.prefillMask = new Int32Array((nodes.length + 31) >>> 5);
    for (const id of l.prefillIds) l.prefillMask[id >>> 5]! |= 1 << (id & 31);
    const first = l.prefill[0];
    l.prefillUniform = l.prefill.every((n) => n.engine === first!.engine && n.hw.kind === first!.hw.kind && n.hw.maxPrefillBatchTokens === first!.hw.maxPrefillBatchTokens);
    l.decode = nodes.filter((n) => n.acceptsDecode);
    l.epoch = acceptance.epoch;
  }
  return l;
}

/** The nodes accepting prefill, in id order. Do not modify the array; it is valid until a node's acceptance changes. */
export function prefillCandidates(nodes: readonly SimNode[]): readonly SimNode[] {
  return lists(nodes).prefill;
}

/** The nodes accepting decode, in id order (same terms as prefillCandidates). */
export function decodeCandidates(nodes: readonly SimNode[]): readonly SimNode[] {
  return lists(nodes).decode;
}

/** The ids of prefillCandidates(nodes) (as a list and as node bits), and whether those nodes are all of one kind, engine model and prefill batch limit. */
export function prefillCandidateIds(nodes: readonly SimNode[]): { ids: Int32Array; mask: Int32Array; uniform: boolean } {
  const l = lists(nodes);
  return { ids: l.prefillIds, mask: l.prefillMask, uniform: l.prefillUniform };
}
