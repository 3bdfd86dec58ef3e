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
