import type { SimRequest } from '../workload/types.js';

/** Where a request is. Every request that arrived is in exactly one of these until `done`. */
export type RequestPhase =
  | 'pending-prefill' // no prefill node available: waits in the cluster-level queue
  | 'bootstrap' // decodeSlots 'dispatch': waits for a request slot on its decode node before prefill (transitions/decode-slots.ts)
  | 'prefill-queue'
  | 'prefill-run'
  | 'transfer' // KV on its way GPU-to-GPU to the decode node
  | 'pending-decode' // no decode node available
  | 'decode'
  | 'done';

/** The simulator's mutable record of one request. */
export class RequestState {
  phase: RequestPhase = 'pending-prefill';
  /** Times the request was restarted from scratch because its node failed. */
  restarts = 0;
  prefillNode = -1;
  /** The prefill node the gateway's load count holds the request against, until its response ends (-1: none; routing/cache-aware.ts). */
  gatewayNode = -1;
  decodeNode = -1;
  /** decodeSlots 'dispatch': the decode node whose request slot it holds from dispatch to its last token (-1: none). */
  slotNode = -1;
  enqueuedAt = 0;
  /** Async fetch: when the missing prefix is on the node; at-start: fetch seconds to add to prefill. */
  fetchReadyAt = 0;
  fetchSeconds = 0;
  /** Prefix blocks this request found (snapshot taken when it was routed). */
  hitBlocks = 0;
  gpuBlocks = 0;
  restoredBlocks = 0;
  fetchedBlocks = 0;
  idealBlocks = 0;
  /** The engine's predicted prefill time on its node (for predicted-TTFT routing). */
  predictedPrefill = 0;
  prefillStart = -1;
  firstTokenAt = -1;
  decodeStart = -1;
  finishedAt = -1;

  constructor(
    readonly req: SimRequest,
    readonly arrival: number,
  ) {}

  get hitTokens(): number {
    return Math.min(this.req.inputTokens, this.hitBlocks * BLOCK_TOKENS);
  }
  get uncachedTokens(): number {
    return this.req.inputTokens - this.hitTokens;
  }
  get contextTokens(): number {
    return this.req.inputTokens + this.req.outputTokens;
  }
}

/** Tokens per KV block (design section 3). */
export const BLOCK_TOKENS = 512;
