import type { SimNode } from '../node.js';
import type { RequestState } from '../request-state.js';
import type { SimState } from '../sim-state.js';

/**
 * Mechanics decodeSlots 'dispatch': SGLang PD's decode-side request slots.
 *
 * In SGLang PD a request is sent to its prefill and its decode server at once.
 * The decode server's DecodePreallocQueue gives it a request slot (a row of
 * req_to_token_pool) and its KV pages, FIFO, and sends their indices to the
 * prefill server; until then the request waits in the prefill server's
 * bootstrap queue and is not prefilled (sgl-project/sglang
 * python/sglang/srt/disaggregation/prefill.py, "requests whose bootstrap
 * (handshake and preallocation) has not finished"; decode.py
 * pop_preallocated, which stops at the first request when
 * req_to_token_pool.available_size() is 0). The slot is freed when the
 * request finishes decoding. DecodeReqToTokenPool holds max_running_requests
 * rows for preallocated, transferring and running requests together (extra
 * pre-allocation rows only when max_running_requests <= 32, or
 * SGLANG_DISAGGREGATION_NUM_PRE_ALLOCATE_REQS), and SGLang sets
 * max_running_requests to 48 under speculative decoding unless it is given
 * (server_args.py: "Max running requests is reset to 48 for speculative
 * decoding"). So on a decode node at most that many requests are anywhere
 * between dispatch and their last token, queued at prefill included.
 *
 * Simplifications: the prefill node is chosen when the slot is granted (the
 * gateway chooses it at dispatch; the choice reads the prefill queues then);
 * the KV budget of the preallocation is not checked here (decodeKv 'gpu'
 * keeps its own admission at the decode batch); requests dispatched while
 * the engine learns (every node serves both phases) take no slot.
 *
 * This module keeps the slot counts (decode.ts and membership.ts use it);
 * slot-admission.ts dispatches requests and, after every event, grants the
 * slots freed during it (a freed slot wakes its node here), so that the
 * decode side does not depend on the prefill side.
 */

/** SGLang's max_running_requests under speculative decoding when none is given (server_args.py). */
export const SGLANG_SPECULATIVE_MAX_RUNNING = 48;

/** Request slots of a decode node: the engine's batch limit, and SGLang's speculative default when the model decodes speculatively. */
export function decodeSlotLimit(node: SimNode): number {
  const speculative = node.hw.tokensPerDecodeIteration > 1;
  return speculative ? Math.min(node.hw.maxDecodeBatch, SGLANG_SPECULATIVE_MAX_RUNNING) : node.hw.maxDecodeBatch;
}

/** Requests take slots at dispatch now (not while the engine learns). */
export function slotsAtDispatch(s: SimState): boolean {
  return s.opts.mechanics.decodeSlots === 'dispatch' && !s.collocating;
}

export function takeSlot(rs: RequestState, node: SimNode): void {
  node.slotsHeld++;
  rs.slotNode = node.id;
  rs.decodeNode = node.id;
}

/**
 * The decode node a prefilled request goes to: the one holding its slot if
 * it still takes decodes; otherwise the slot is given back and the router
 * chooses (null).
 */
export function slotDecodeNode(s: SimState, rs: RequestState): SimNode | null {
  if (rs.slotNode < 0) return null;
  const node = s.nodes[rs.slotNode]!;
  if (node.acceptsDecode) return node;
  releaseSlot(s, rs);
  return null;
}

/** The request finished (or left its slot's node): the slot is free for the next request waiting on that node. */
export function releaseSlot(s: SimState, rs: RequestState): void {
  if (rs.slotNode < 0) return;
  const node = s.nodes[rs.slotNode]!;
  node.slotsHeld--;
  rs.slotNode = -1;
  wakeSlots(s, node);
}

/** The node's slots freed, or it stopped taking decodes: its waiting requests are looked at after the event (slot-admission.ts). */
export function wakeSlots(s: SimState, node: SimNode): void {
  if (node.preallocQueue.length > 0) s.slotWake.push(node);
}
