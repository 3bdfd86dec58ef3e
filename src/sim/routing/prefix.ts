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

export function placementOn(node: SimNode, rs: RequestState, match: PrefixMatch, sharedPool: boolean): PrefillPlacement {
  const gpu = match.gpu[node.id]!;
  const local = match.local[node.id]!;
  const hit = sharedPool ? Math.max(local, match.pool) : local;
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
  return { node, hitBlocks: hit, gpuBlocks: gpu, restoredBlocks: restored, fetchedBlocks: fetched, fetchSeconds, predictedPrefill };
}
