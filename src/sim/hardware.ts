import type { DecodeShape } from './perf/coefficients.js';
import type { EngineCoefficients } from './learning/prior.js';

/**
 * What the simulator needs to know about one node's hardware running one
 * model: the iteration-time truth (with noise), what the engine knows before
 * measuring anything (or, for tests, an engine model given outright), KV
 * capacities and data-movement times. Built from the profiles in
 * evaluator/profiles by `buildNodeHardware`.
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

/**
 * Public facts the engine starts from in online learning: phi(B)'s shape
 * (k of E routed experts per token, t_fwd tokens fed) and a conservative prior
 * built from the profiles' public values. Never the truth's coefficients.
 */
export interface EngineSetup {
  readonly shape: DecodeShape;
  readonly prior: EngineCoefficients;
}

/**
 * The truth as the *scorer* of the learned model sees it: noise-free times
 * and the coefficients. Only the learning report reads it; the engine, the
 * router and the policies never do.
 */
export interface TruthReference {
  readonly expected: IterationModelView;
  readonly coefficients: EngineCoefficients;
}

export interface NodeHardware {
  readonly kind: string;
  /** The truth, with noise: what an iteration really takes. The simulator times iterations with it; nothing predicts with it. */
  readonly truth: IterationModelView;
  /** Online learning (the default): what the engine knows before it measures. */
  readonly engineSetup?: EngineSetup;
  /** For scoring the learned model against the noise-free truth (result.learning). */
  readonly truthReference?: TruthReference;
  /**
   * `learning: 'given'` only: the engine's model, used as is (tests that need
   * exact timings). Online learning ignores it.
   */
  readonly engine?: IterationModelView;
  readonly l1Blocks: number;
  readonly l2Blocks: number;
  readonly maxPrefillBatchTokens: number;
  readonly maxDecodeBatch: number;
  /** Tokens accepted per decode iteration (speculative decoding). */
  readonly tokensPerDecodeIteration: number;
  /** Seconds to bring tokens from a peer's host memory and from host memory to GPU. */
  fetchSeconds(peerTokens: number, hostTokens: number): number;
  /**
   * Mechanics fetchOverlap layerwise: seconds of one merged host-to-GPU load
   * of `tokens` on one GPU's host link, and the model's layer count it
   * streams over. Absent on hand-made hardware; the prefill then waits as
   * with fetchOverlap none.
   */
  readonly layerwiseLoad?: { seconds(tokens: number): number; readonly layers: number };
  /** Seconds to send a request's KV from its prefill GPU to its decode GPU. */
  transferSeconds(tokens: number): number;
  /** Seconds a Dynamo-style restart takes (drawn by the caller's rng). */
  restartSeconds(u: number): number;
}
