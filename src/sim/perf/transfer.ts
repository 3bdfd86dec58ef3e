import type { ModelProfile } from '../profiles/model.js';
import type { NodeKind } from '../profiles/node-kind.js';

/**
 * Data-movement times of KV, for the planner and the router: latency plus
 * bytes over bandwidth, with bytes = tokens * kvBytesPerToken. Moving
 * nothing takes no time (no setup is paid).
 */

export function kvBytes(model: ModelProfile, tokens: number): number {
  return tokens * model.shape.kvBytesPerToken;
}

/** Peer host memory -> own host memory -> GPU (a pooled-L2 hit on another node). */
export function fetchTime(kind: NodeKind, model: ModelProfile, tokens: number): number {
  if (tokens <= 0) return 0;
  return kind.transfer.fetchLatency + kvBytes(model, tokens) / kind.transfer.fetchBandwidth;
}

/**
 * Own host memory -> GPU (an L2 hit on this node), as a standalone transfer.
 * Inside a prefill iteration the truth charges restores through c3 instead,
 * which counts only the part not hidden under compute.
 */
export function restoreTime(kind: NodeKind, model: ModelProfile, tokens: number): number {
  if (tokens <= 0) return 0;
  return kind.transfer.hostToGpuLatency + kvBytes(model, tokens) / kind.transfer.hostToGpuBandwidth;
}

/**
 * Bringing a prefix in before prefill: `peerTokens` fetched from a peer and
 * `hostTokens` restored from own host. Both end on the same host->GPU link,
 * so they are taken one after the other (a conservative assumption).
 */
export function kvLoadTime(kind: NodeKind, model: ModelProfile, peerTokens: number, hostTokens: number): number {
  return fetchTime(kind, model, peerTokens) + restoreTime(kind, model, hostTokens);
}

/** Prefill GPU -> decode GPU: a request's whole KV on its way to decode. */
export function gpuTransferTime(kind: NodeKind, model: ModelProfile, tokens: number): number {
  if (tokens <= 0) return 0;
  return kind.transfer.gpuToGpuLatency + kvBytes(model, tokens) / kind.transfer.gpuToGpuBandwidth;
}

/**
 * Own host memory -> GPU as SGLang HiCache loads a prefill batch's prefixes
 * (mechanics fetchOverlap layerwise): one merged transfer of all `tokens`
 * over one GPU's host link, since MLA KV is whole on every TP rank and each
 * rank loads all of it over its own link, in parallel with the others.
 */
export function rankLoadTime(kind: NodeKind, model: ModelProfile, tokens: number): number {
  if (tokens <= 0) return 0;
  return kind.transfer.hostToGpuLatency + kvBytes(model, tokens) / (kind.transfer.hostToGpuRankBandwidth ?? kind.transfer.hostToGpuBandwidth);
}
