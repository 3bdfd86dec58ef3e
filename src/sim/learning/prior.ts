import type { DecodeCoefficients, PrefillCoefficients } from '../perf/coefficients.js';

/** The engine's iteration-time coefficients of one node kind (the prior, or a fit). */
export interface EngineCoefficients {
  prefill: PrefillCoefficients;
  decode: DecodeCoefficients;
}

/**
 * What the engine knows about its hardware and model before it has timed a
 * single iteration: public facts from the node-kind and model profiles, never
 * the truth's coefficients.
 */
export interface PriorFacts {
  /** KV bytes per token (model shape). */
  kvBytesPerToken: number;
  /** Own host memory -> GPU bandwidth, bytes/s (node kind). */
  hostToGpuBandwidth: number;
  /** Compute speed relative to the reference kind (node kind; gb300 = 1). */
  prefillComputeSpeed: number;
  /** Memory-bandwidth speed relative to the reference kind (node kind; gb300 = 1). */
  decodeMemorySpeed: number;
}

/**
 * Generic order-of-magnitude costs of a large mixture-of-experts model on one
 * 4-GPU node of the reference kind, the same for every model. Deliberately
 * pessimistic (routing then over- rather than under-estimates a busy node)
 * and only used for the first seconds of the warm-up, until the fit of the
 * engine's own measurements converges.
 */
export const GENERIC_PRIOR: EngineCoefficients = {
  prefill: { c0: 0.02, c1: 5e-5, c2: 1e-9, c3: 0 },
  decode: { d0: 0.01, d1: 0.02, d2: 5e-4 },
};

/**
 * The conservative prior: the generic costs scaled by the kind's relative
 * speeds, and a restore cost per token from the link alone (KV bytes over
 * host->GPU bandwidth, none of it hidden under compute, so an upper bound).
 */
export function priorCoefficients(facts: PriorFacts): EngineCoefficients {
  const p = 1 / facts.prefillComputeSpeed;
  const d = 1 / facts.decodeMemorySpeed;
  const g = GENERIC_PRIOR;
  return {
    prefill: { c0: g.prefill.c0 * p, c1: g.prefill.c1 * p, c2: g.prefill.c2 * p, c3: facts.kvBytesPerToken / facts.hostToGpuBandwidth },
    decode: { d0: g.decode.d0 * d, d1: g.decode.d1 * d, d2: g.decode.d2 * d },
  };
}
