import type { SimEvent } from '../events.js';
import type { SimNode } from '../node.js';
import type { NodeHardware } from '../hardware.js';
import { layerwiseWait } from '../perf/layerwise-load.js';
import { prefillIterations } from '../prefill-chunks.js';
import { BLOCK_TOKENS, type RequestState } from '../request-state.js';
import { prefillCandidates } from '../routing/candidates.js';
import { choosePrefillScan } from '../routing/prefill-scan.js';
import { gatewayRouted } from '../routing/cache-aware.js';
import { scoredPeriod, type SimState } from '../sim-state.js';
import { complete, routeDecode } from './decode.js';

/**
 * Prefill: routing a request to a prefill node, its prefix fetch, batching
 * queued requests into iterations, and the end of a batch.
 */

/** Place a request on a prefill node (or the cluster queue when none accepts prefill) and start its fetch. */
export function routePrefill(s: SimState, rs: RequestState, now: number, out: SimEvent[]): void {
  const candidates = prefillCandidates(s.nodes);
  if (candidates.length === 0) {
    rs.phase = 'pending-prefill';
    s.pendingPrefill.push(rs);
    return;
  }
  const match = s.kv.match(rs.req.blocks);
  const shared = s.opts.mechanics.pool === 'shared';
  const chosen = choosePrefillScan(s.knobs.prefillRouting, rs, s.nodes, candidates, match, shared, now, s.prefillRouter, s.knobs.tuning);
  const node = chosen.node;
  // affinityView 'gateway': the gateway counts the request against its prefill worker until its response ends.
  const gateway = s.prefillRouter.gateway;
  if (gateway) gatewayRouted(gateway, rs, node.id);
  rs.phase = 'prefill-queue';
  rs.prefillNode = node.id;
  rs.enqueuedAt = now;
  rs.hitBlocks = chosen.hitBlocks;
  rs.gpuBlocks = chosen.gpuBlocks;
  rs.restoredBlocks = chosen.restoredBlocks;
  rs.fetchedBlocks = chosen.fetchedBlocks;
  rs.idealBlocks = match.ideal;
  rs.fetchSeconds = chosen.fetchSeconds;
  rs.predictedPrefill = chosen.predictedPrefill;
  node.prefillQueue.push(rs);
  node.queuedPredictedSeconds += rs.predictedPrefill;
  node.activeBlocks += rs.req.blocks.length;
  if (s.opts.mechanics.fetch === 'async' && rs.fetchSeconds > 0) {
    // The fetch runs while the request waits in the queue.
    rs.fetchReadyAt = now + rs.fetchSeconds;
    out.push({ type: 'fetch-done', at: rs.fetchReadyAt, node: node.id, generation: node.generation });
  } else {
    rs.fetchReadyAt = now;
  }
  tryStartPrefill(s, node, now, out);
}

/** Start the next prefill iteration on an idle prefill node: queued requests whose fetch is done, FIFO, up to the token budget. */
export function tryStartPrefill(s: SimState, node: SimNode, now: number, out: SimEvent[]): void {
  if (node.prefillRunning.length > 0 || !node.servesPrefill || node.status !== 'active') return;
  const atStart = s.opts.mechanics.fetch === 'at-start';
  const batch: RequestState[] = [];
  const limit = prefillTokenLimit(s, node);
  let budget = limit;
  for (let i = 0; i < node.prefillQueue.length; ) {
    const rs = node.prefillQueue[i]!;
    const ready = atStart || rs.fetchReadyAt <= now;
    const fits = batch.length === 0 || rs.uncachedTokens <= budget;
    if (ready && fits) {
      batch.push(rs);
      budget -= rs.uncachedTokens;
      node.prefillQueue.splice(i, 1);
      if (budget <= 0) break;
    } else {
      i++;
    }
  }
  if (batch.length === 0) return;
  let fetchWait = 0;
  for (const rs of batch) {
    node.queuedPredictedSeconds -= rs.predictedPrefill;
    rs.phase = 'prefill-run';
    rs.prefillStart = now;
    if (atStart) fetchWait = Math.max(fetchWait, rs.fetchSeconds);
  }
  if (node.prefillQueue.length === 0) node.queuedPredictedSeconds = 0;
  const work = batch.map((rs) => ({ uncachedTokens: rs.uncachedTokens, cachedTokens: rs.hitTokens, restoredTokens: Math.min(rs.hitTokens, rs.restoredBlocks * BLOCK_TOKENS) }));
  // A prompt longer than the iteration budget runs alone as chunked prefill, one iteration per chunk.
  let compute = 0;
  let first = -1;
  for (const iteration of prefillIterations(work, limit)) {
    const seconds = node.hw.truth.prefillTime(iteration);
    if (first < 0) first = seconds;
    compute += seconds;
    s.learning?.prefill(node.hw, now, iteration, seconds);
  }
  const load = node.hw.layerwiseLoad;
  if (atStart && load && s.opts.mechanics.fetchOverlap === 'layerwise') {
    fetchWait = layerwiseFetchWait(node.hw, load, batch, work.reduce((sum, w) => sum + w.restoredTokens, 0), first);
  }
  node.prefillRunning = batch;
  node.prefillBusyUntil = now + fetchWait + compute;
  if (scoredPeriod(s, now)) s.prefillComputeSeconds += compute;
  out.push({ type: 'prefill-done', at: node.prefillBusyUntil, node: node.id, generation: node.generation });
}

/**
 * fetchOverlap layerwise: peer reads (shared pool) end before anything can be
 * loaded to the GPU, the longest first; then the batch's host-to-GPU loads go
 * as one merged transfer that streams under the first iteration's layers
 * (perf/layerwise-load.ts).
 */
function layerwiseFetchWait(
  hw: NodeHardware,
  load: NonNullable<NodeHardware['layerwiseLoad']>,
  batch: readonly RequestState[],
  restoredTokens: number,
  firstIteration: number,
): number {
  let peer = 0;
  for (const rs of batch) if (rs.fetchedBlocks > 0) peer = Math.max(peer, hw.fetchSeconds(rs.fetchedBlocks * BLOCK_TOKENS, 0));
  return peer + layerwiseWait(load.seconds(restoredTokens), firstIteration, load.layers);
}

/** The token budget of one prefill batch and iteration: the plan's (batching.maxPrefillTokens), capped by the engine's. */
function prefillTokenLimit(s: SimState, node: SimNode): number {
  const k = s.knobs.maxPrefillTokens;
  return k === null ? node.hw.maxPrefillBatchTokens : Math.min(k, node.hw.maxPrefillBatchTokens);
}

/** An async fetch ended: the node may now start a batch with the request. */
export function onFetchDone(s: SimState, ev: Extract<SimEvent, { type: 'fetch-done' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const node = s.nodes[ev.node]!;
  if (ev.generation === node.generation) tryStartPrefill(s, node, now, out);
  return out;
}

/** A batch ended: its prompts' KV enters the node's prefix cache, each request goes to decode (or completes), the next batch starts. */
export function onPrefillDone(s: SimState, ev: Extract<SimEvent, { type: 'prefill-done' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const node = s.nodes[ev.node]!;
  if (ev.generation !== node.generation) return out;
  const batch = node.prefillRunning;
  node.prefillRunning = [];
  for (const rs of batch) {
    node.activeBlocks -= rs.req.blocks.length;
    s.kv.admitPrefill(node.id, rs.req.branch, rs.req.blocks, now);
    if (rs.firstTokenAt < 0) rs.firstTokenAt = now;
    if (rs.req.outputTokens <= 1) complete(s, rs, node, now, out);
    else routeDecode(s, rs, node, now, out);
  }
  // A switching node is drained, not refilled (the event loop then checks whether its switch can finish).
  if (node.status !== 'switching') tryStartPrefill(s, node, now, out);
  return out;
}

/** The node stops prefilling what it has not started: its queue moves to other prefill nodes; a running batch finishes in place. */
export function moveQueuedPrefills(s: SimState, node: SimNode, now: number, out: SimEvent[]): void {
  const moved = node.prefillQueue.splice(0);
  node.queuedPredictedSeconds = 0;
  for (const rs of moved) {
    node.activeBlocks -= rs.req.blocks.length;
    routePrefill(s, rs, now, out);
  }
}

/**
 * The node's KV is gone (it failed or restarts): requests it prefilled that
 * wait in the cluster queue for a decode node have nothing left to decode
 * from, and prefill again.
 */
export function reprefillPendingDecodes(s: SimState, node: SimNode, now: number, out: SimEvent[]): void {
  const lost: RequestState[] = [];
  let kept = 0;
  for (const rs of s.pendingDecode) {
    if (rs.prefillNode === node.id) lost.push(rs);
    else s.pendingDecode[kept++] = rs;
  }
  s.pendingDecode.length = kept;
  for (const rs of lost) {
    rs.restarts++;
    routePrefill(s, rs, now, out);
  }
}
