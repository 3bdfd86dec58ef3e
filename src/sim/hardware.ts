/**
 * What the simulator needs to know about one node's hardware running one
 * model: the iteration-time truth (with noise), the engine's own model of it
 * (what routing and policies see), KV capacities and data-movement times.
 * Built from the profiles in evaluator/profiles by `buildNodeHardware`.
 */
export interface PrefillWork {
  uncachedTokens: number;
  cachedTokens: number;
  restoredTokens: number;
}

export interface IterationModelView {
  prefillTime(batch: readonly PrefillWork[]): number;
  decodeTime(batchSize: number, meanContextTokens: number): number;
}

export interface NodeHardware {
  readonly kind: string;
  /** The truth, with noise: what an iteration really takes. */
  readonly truth: IterationModelView;
  /** The engine's model (noise-free; later the online-fitted one): what the router and policies see. */
  readonly engine: IterationModelView;
  readonly l1Blocks: number;
  readonly l2Blocks: number;
  readonly maxPrefillBatchTokens: number;
  readonly maxDecodeBatch: number;
  /** Tokens accepted per decode iteration (speculative decoding). */
  readonly tokensPerDecodeIteration: number;
  /** Seconds to bring tokens from a peer's host memory and from host memory to GPU. */
  fetchSeconds(peerTokens: number, hostTokens: number): number;
  /** Seconds to send a request's KV from its prefill GPU to its decode GPU. */
  transferSeconds(tokens: number): number;
  /** Seconds a Dynamo-style restart takes (drawn by the caller's rng). */
  restartSeconds(u: number): number;
}
