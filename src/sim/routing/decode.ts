import type { DecodeRouting } from '../mechanics.js';
import type { SimNode } from '../node.js';
import { decodeIndex } from './decode-index.js';

export interface DecodeRouterState {
  nextRoundRobin: number;
}

/**
 * Below this many decode candidates a pass over them is cheaper than keeping
 * the decode index (decode-index.ts) current; it picks the same node.
 */
export const INDEX_FROM = 32;

/**
 * Pick a decode node among those accepting decode (`candidates`: non-empty,
 * in id order, of `nodes`). Least-loaded: the lowest decode load, lowest id
 * on ties, from the decode index on large clusters rather than a pass over
 * the candidates.
 */
export function chooseDecode(routing: DecodeRouting, nodes: readonly SimNode[], candidates: readonly SimNode[], state: DecodeRouterState): SimNode {
  if (routing === 'round-robin') {
    // Cycle over node ids so that a change of the decode set does not reset the rotation.
    const after = candidates[firstAtLeast(candidates, state.nextRoundRobin)] ?? candidates[0]!;
    state.nextRoundRobin = after.id + 1;
    return after;
  }
  if (candidates.length < INDEX_FROM) return leastLoaded(candidates);
  return nodes[decodeIndex(nodes).all.least.first()]!;
}

/** The first node of lowest decode load. */
function leastLoaded(pool: readonly SimNode[]): SimNode {
  let least = pool[0]!;
  for (const n of pool) if (n.decodeLoad < least.decodeLoad) least = n;
  return least;
}

/** The index of the first candidate whose id is at least `id` (candidates.length if none): they are in id order. */
function firstAtLeast(candidates: readonly SimNode[], id: number): number {
  let lo = 0;
  let hi = candidates.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (candidates[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Decode routing while the engine learns its iteration-time model: pack the
 * requests of a node kind onto as few nodes of that kind as the batch limit
 * allows (the most loaded node with room, lowest id on ties; the least
 * loaded if all are full), so that each kind serves the whole range of batch
 * sizes its load allows. Spread over collocated engines, every node would
 * see only a handful of running requests, too few to tell the expert-loading
 * term phi(B) from the per-request term B. Falls back to every node
 * accepting decode when no node of `kind` does. `candidates`: the nodes
 * accepting decode (non-empty, in id order); from the decode index on large
 * clusters.
 */
export function packDecode(nodes: readonly SimNode[], candidates: readonly SimNode[], kind: string): SimNode {
  if (candidates.length < INDEX_FROM) return packScan(candidates, kind);
  const ix = decodeIndex(nodes);
  const same = ix.ofKind(kind);
  const pool = same && same.least.min !== Infinity ? same : ix.all;
  const withRoom = pool.room.first();
  return nodes[withRoom >= 0 ? withRoom : pool.least.first()]!;
}

/** packDecode by a pass over the candidates. */
function packScan(candidates: readonly SimNode[], kind: string): SimNode {
  const same = candidates.filter((n) => n.hw.kind === kind);
  const pool = same.length > 0 ? same : candidates;
  let best: SimNode | undefined;
  for (const n of pool) {
    if (n.decodeLoad >= n.hw.maxDecodeBatch) continue;
    if (!best || n.decodeLoad > best.decodeLoad) best = n;
  }
  return best ?? leastLoaded(pool);
}
