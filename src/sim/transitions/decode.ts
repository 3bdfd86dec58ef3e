import type { SimEvent } from '../events.js';
import type { SimNode } from '../node.js';
import type { RequestState } from '../request-state.js';
import { gatewayDone } from '../routing/cache-aware.js';
import { decodeCandidates } from '../routing/candidates.js';
import { chooseDecode, packDecode } from '../routing/decode.js';
import { scheduleWorkload, type SimState } from '../sim-state.js';
import { releaseSlot, slotDecodeNode, wakeSlots } from './decode-slots.js';

/**
 * Decode: the hand-off of a prefilled request's KV to a decode node, the
 * node's continuous batch and its step timer, and completion.
 */

/** Send a prefilled request to a decode node (its KV leaves `from`), or to the cluster queue when none accepts decode. */
export function routeDecode(s: SimState, rs: RequestState, from: SimNode, now: number, out: SimEvent[]): void {
  const candidates = decodeCandidates(s.nodes);
  if (candidates.length === 0) {
    rs.phase = 'pending-decode';
    s.pendingDecode.push(rs);
    return;
  }
  // decodeSlots 'dispatch': the node holding its slot. While the engine learns, decodes of a kind are packed so that it sees the whole range of batch sizes.
  const target =
    slotDecodeNode(s, rs) ??
    (s.collocating ? packDecode(s.nodes, candidates, from.hw.kind) : chooseDecode(s.knobs.decodeRouting, s.nodes, candidates, s.decodeRouter));
  rs.phase = 'transfer';
  rs.decodeNode = target.id;
  target.inboundTransfers++;
  const seconds = target.id === from.id ? 0 : from.hw.transferSeconds(rs.req.inputTokens);
  out.push({ type: 'transfer-done', at: now + seconds, node: target.id, rs });
}

/** The KV arrived: the request joins the node's decode batch, or goes elsewhere if the node no longer takes decodes. */
export function onTransferDone(s: SimState, ev: Extract<SimEvent, { type: 'transfer-done' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const node = s.nodes[ev.node]!;
  const rs = ev.rs;
  node.inboundTransfers--;
  if (!node.acceptsDecode) {
    // The node failed or started switching while the KV was in flight: send it elsewhere.
    routeDecode(s, rs, node, now, out);
    return out;
  }
  rs.phase = 'decode';
  rs.decodeStart = now;
  // The prompt's KV arrives GPU-to-GPU and lives with the running request;
  // it is already in the pool on its prefill node, so the decode node does
  // not cache it again. Decode nodes only write to the pool what they
  // produce (see complete()), and hold their branch's count on that.
  node.addDecodeRequest(rs);
  // Its GPU KV on the node (decodeKv 'gpu'): the prompt's, growing as it generates.
  node.decode.join(now, rs.req.id, rs.req.outputTokens - 1, rs.contextTokens, rs.req.inputTokens);
  armDecodeTimer(node, now, out);
  return out;
}

/** (Re)arm the node's decode timer for its batch's next event; a timer whose token is stale is ignored. */
export function armDecodeTimer(node: SimNode, now: number, out: SimEvent[]): void {
  const at = node.decode.nextEventTime();
  if (at === node.decodeTimerAt) return;
  node.decodeTimerToken++;
  node.decodeTimerAt = at;
  if (Number.isFinite(at)) out.push({ type: 'decode', at: Math.max(at, now), node: node.id, token: node.decodeTimerToken });
}

/** The batch reached its next event: requests that produced their last token complete. */
export function onDecodeStep(s: SimState, ev: Extract<SimEvent, { type: 'decode' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const node = s.nodes[ev.node]!;
  if (ev.token !== node.decodeTimerToken) return out;
  node.decodeTimerAt = Infinity;
  for (const { id } of node.decode.advance(now)) {
    const rs = node.takeDecodeRequest(id);
    complete(s, rs, node, now, out);
  }
  armDecodeTimer(node, now, out);
  return out;
}

/**
 * The request's last token: its produced KV goes to the pool (decodeOutput
 * cached) or is freed, still counted as produced (dropped); the workload
 * hears of it.
 */
export function complete(s: SimState, rs: RequestState, node: SimNode, now: number, out: SimEvent[]): void {
  rs.phase = 'done';
  rs.finishedAt = now;
  releaseSlot(s, rs);
  const gateway = s.prefillRouter.gateway;
  if (gateway) gatewayDone(gateway, rs);
  const produced = rs.req.producedBlocks;
  if (produced.length > 0) {
    if (s.opts.mechanics.decodeOutput === 'dropped') s.kv.markProduced(produced);
    else s.kv.addProduced(node.id, rs.req.branch, produced, now);
  }
  s.requests.delete(rs.req.id);
  s.metrics.completion(rs, now);
  for (const ev of s.opts.source.onComplete(rs.req.id, now)) scheduleWorkload(s, ev, now, out);
}

/** The node stops decoding what it has not started: waiting requests move to other decode nodes; running ones finish in place. */
export function moveWaitingDecodes(s: SimState, node: SimNode, now: number, out: SimEvent[]): void {
  for (const id of node.decode.takeWaiting()) {
    const rs = node.takeDecodeRequest(id);
    routeDecode(s, rs, node, now, out);
  }
  wakeSlots(s, node);
  armDecodeTimer(node, now, out);
}
