import type { SimEvent } from '../events.js';
import type { SimNode } from '../node.js';
import type { RequestState } from '../request-state.js';
import { decodeCandidates } from '../routing/candidates.js';
import { chooseDecode } from '../routing/decode.js';
import type { SimState } from '../sim-state.js';
import { decodeSlotLimit, slotsAtDispatch, takeSlot } from './decode-slots.js';
import { routePrefill } from './prefill.js';

/**
 * Mechanics decodeSlots 'dispatch' (decode-slots.ts): dispatching a request
 * to its decode node's slot before prefill, and granting freed slots.
 */

/** A new request (or one sent back to dispatch): under 'dispatch', its decode node's slot first, then prefill; else prefill at once. */
export function dispatchRequest(s: SimState, rs: RequestState, now: number, out: SimEvent[]): void {
  if (!slotsAtDispatch(s) || rs.slotNode >= 0) {
    routePrefill(s, rs, now, out);
    return;
  }
  const candidates = decodeCandidates(s.nodes);
  if (candidates.length === 0) {
    routePrefill(s, rs, now, out);
    return;
  }
  // SGLang's PD router picks the decode worker with the prefill worker, when the request arrives.
  const target = chooseDecode(s.knobs.decodeRouting, s.nodes, candidates, s.decodeRouter);
  if (target.preallocQueue.length === 0 && target.slotsHeld < decodeSlotLimit(target)) {
    takeSlot(rs, target);
    routePrefill(s, rs, now, out);
    return;
  }
  rs.phase = 'bootstrap';
  rs.decodeNode = target.id;
  target.preallocQueue.push(rs);
}

/** After an event: the nodes whose slots freed grant them to their waiting requests, FIFO; a node that no longer takes decodes sends them to be dispatched again. */
export function admitWoken(s: SimState, now: number, out: SimEvent[]): void {
  while (s.slotWake.length > 0) admitWaiting(s, s.slotWake.shift()!, now, out);
}

function admitWaiting(s: SimState, node: SimNode, now: number, out: SimEvent[]): void {
  if (node.preallocQueue.length === 0) return;
  if (!node.acceptsDecode || !slotsAtDispatch(s)) {
    for (const rs of node.preallocQueue.splice(0)) {
      rs.decodeNode = -1;
      dispatchRequest(s, rs, now, out);
    }
    return;
  }
  const limit = decodeSlotLimit(node);
  while (node.preallocQueue.length > 0 && node.slotsHeld < limit) {
    const rs = node.preallocQueue.shift()!;
    takeSlot(rs, node);
    routePrefill(s, rs, now, out);
  }
}
