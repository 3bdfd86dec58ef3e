import type { DecodeRouting } from '../mechanics.js';
import type { SimNode } from '../node.js';

export interface DecodeRouterState {
  nextRoundRobin: number;
}

/** Pick a decode node among those accepting decode (non-empty, in id order). */
export function chooseDecode(routing: DecodeRouting, candidates: readonly SimNode[], state: DecodeRouterState): SimNode {
  if (routing === 'round-robin') {
    // Cycle over node ids so that a change of the decode set does not reset the rotation.
    const after = candidates.find((n) => n.id >= state.nextRoundRobin) ?? candidates[0]!;
    state.nextRoundRobin = after.id + 1;
    return after;
  }
  let best = candidates[0]!;
  for (const n of candidates) if (n.decodeLoad < best.decodeLoad) best = n;
  return best;
}

/**
 * Decode routing while the engine learns its iteration-time model: pack the
 * requests of a node kind onto as few nodes of that kind as the batch limit
 * allows (the most loaded node with room, lowest id on ties; the least
 * loaded if all are full), so that each kind serves the whole range of batch
 * sizes its load allows. Spread over collocated engines, every node would
 * see only a handful of running requests, too few to tell the expert-loading
 * term phi(B) from the per-request term B. Falls back to every candidate when
 * no node of `kind` accepts decode.
 */
export function packDecode(candidates: readonly SimNode[], kind: string): SimNode {
  const same = candidates.filter((n) => n.hw.kind === kind);
  const pool = same.length > 0 ? same : candidates;
  let best: SimNode | undefined;
  for (const n of pool) {
    if (n.decodeLoad >= n.hw.maxDecodeBatch) continue;
    if (!best || n.decodeLoad > best.decodeLoad) best = n;
  }
  if (best) return best;
  let least = pool[0]!;
  for (const n of pool) if (n.decodeLoad < least.decodeLoad) least = n;
  return least;
}
