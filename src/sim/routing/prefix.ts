import type { PrefixMatch } from '../kv/index.js';
import type { SimNode } from '../node.js';
import { prefillAloneTime } from '../perf/iteration-model.js';
import { BLOCK_TOKENS, type RequestState } from '../request-state.js';

/** What a request would find, fetch and compute if it were prefilled on one node. */
export interface PrefillPlacement {
  node: SimNode;
  /** Leading blocks available to it (own GPU, own host, or with a shared pool a peer's host). */
  hitBlocks: number;
  gpuBlocks: number;
  /** Hit blocks not in its GPU: brought from host memory (own or peer). */
  restoredBlocks: number;
  /** Hit blocks only in peers' host memory (shared pool only). */
  fetchedBlocks: number;
  fetchSeconds: number;
  /** The engine's predicted prefill time of this request alone on the node (chunked if longer than the iteration budget). */
  predictedPrefill: number;
}

/**
 * The last placement's inputs and predictions. A request is placed on every
 * prefill node in id order, and most nodes hold none of its prefix, so
 * consecutive nodes of one kind usually ask the same question: the answer is
 * reused instead of evaluating the engine's model once per node. The key
 * includes the match object, which is new per request, so nothing carries
 * over between requests (the engine's model may have changed meanwhile).
 */
const last = {
  match: null as PrefixMatch | null,
  rs: null as RequestState | null,
  engine: null as SimNode['engine'] | null,
  kind: '',
  maxTokens: 0,
  gpu: -1,
  local: -1,
  shared: false,
  fetchSeconds: 0,
  predictedPrefill: 0,
};

/**
 * What the request would find on `node`. The returned object belongs to the
 * node and is overwritten by the next call for that node: read what you need
 * (the router does, field by field) before placing the next request.
 */
export function placementOn(node: SimNode, rs: RequestState, match: PrefixMatch, sharedPool: boolean): PrefillPlacement {
  const gpu = match.gpu[node.id]!;
  const local = match.local[node.id]!;
  const hit = sharedPool ? Math.max(local, match.pool) : local;
  costsOn(node, rs, match, sharedPool, gpu, local, hit);
  return fillPlacement(node, hit, gpu, hit - gpu, hit - local, last.fetchSeconds, last.predictedPrefill);
}

/**
 * The fetch and predicted prefill seconds of the request on `node`, given the
 * node's match counts (`hit` as placementOn derives it): reused
 * from the previous call when it asked the same question (see `last`); read
 * them from `lastCosts`.
 * The scanning router (prefill-scan.ts) calls it node by node in id order,
 * exactly as placing the request on every node does.
 */
export function costsOn(node: SimNode, rs: RequestState, match: PrefixMatch, sharedPool: boolean, gpu: number, local: number, hit: number): void {
  // Same kind, same engine model, same prefix: the same fetch and prefill time.
  if (
    last.match === match &&
    last.rs === rs &&
    last.engine === node.engine &&
    last.kind === node.hw.kind &&
    last.maxTokens === node.hw.maxPrefillBatchTokens &&
    last.gpu === gpu &&
    last.local === local &&
    last.shared === sharedPool
  ) {
    return;
  }
  const fetched = hit - local;
  const restored = hit - gpu;
  const input = rs.req.inputTokens;
  const hitTokens = Math.min(input, hit * BLOCK_TOKENS);
  const fetchSeconds = restored > 0 ? node.hw.fetchSeconds(fetched * BLOCK_TOKENS, restored * BLOCK_TOKENS) : 0;
  const predictedPrefill = prefillAloneTime(
    node.engine,
    { uncachedTokens: input - hitTokens, cachedTokens: hitTokens, restoredTokens: Math.min(hitTokens, restored * BLOCK_TOKENS) },
    node.hw.maxPrefillBatchTokens,
  );
  last.match = match;
  last.rs = rs;
  last.engine = node.engine;
  last.kind = node.hw.kind;
  last.maxTokens = node.hw.maxPrefillBatchTokens;
  last.gpu = gpu;
  last.local = local;
  last.shared = sharedPool;
  last.fetchSeconds = fetchSeconds;
  last.predictedPrefill = predictedPrefill;
}

/** What the last costsOn call found (read right after it). */
export const lastCosts: { readonly fetchSeconds: number; readonly predictedPrefill: number } = last;

/** The node's placement object (see placementOn), filled with these values. */
export function fillPlacement(node: SimNode, hit: number, gpu: number, restored: number, fetched: number, fetchSeconds: number, predictedPrefill: number): PrefillPlacement {
  // One placement object per node, refilled by every call: a request is
  // placed on every prefill node, and fresh objects per node and request were
  // most of the garbage on large clusters.
  let p = node.placementScratch as PrefillPlacement | null;
  if (!p) {
    p = { node, hitBlocks: 0, gpuBlocks: 0, restoredBlocks: 0, fetchedBlocks: 0, fetchSeconds: 0, predictedPrefill: 0 };
    node.placementScratch = p;
  }
  p.hitBlocks = hit;
  p.gpuBlocks = gpu;
  p.restoredBlocks = restored;
  p.fetchedBlocks = fetched;
  p.fetchSeconds = fetchSeconds;
  p.predictedPrefill = predictedPrefill;
  return p;
}
