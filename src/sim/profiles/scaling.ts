import type { TruthSpec } from '../perf/truth.js';
import { loadNodeKind } from './loader.js';
import type { ModelProfile } from './model.js';
import type { NodeKind } from './node-kind.js';

/**
 * Coefficients of a (model, node kind): the model's coefficients, stated on
 * its reference kind, scaled by relative speeds. Prefill compute terms
 * (c0..c2) scale with compute speed, decode terms (d0..d2 and the context
 * term) with memory bandwidth, and the restore term c3 with the host->GPU
 * link. This is a first-order assumption: it ignores that a slower kind may
 * shift the balance inside a term.
 */
export function scaleCoefficients(model: ModelProfile, kind: NodeKind, reference: NodeKind): TruthSpec {
  const p = reference.relativeSpeed.prefillCompute / kind.relativeSpeed.prefillCompute;
  const d = reference.relativeSpeed.decodeMemory / kind.relativeSpeed.decodeMemory;
  const r = reference.transfer.hostToGpuBandwidth / kind.transfer.hostToGpuBandwidth;
  return {
    prefill: { c0: model.prefill.c0 * p, c1: model.prefill.c1 * p, c2: model.prefill.c2 * p, c3: model.prefill.c3 * r },
    decode: { d0: model.decode.d0 * d, d1: model.decode.d1 * d, d2: model.decode.d2 * d },
    decodeContext: { perToken: model.decodeContext.perToken * d },
    shape: {
      routedExperts: model.shape.routedExperts,
      expertsPerToken: model.shape.expertsPerToken,
      tokensFed: model.speculative.tokensFed,
    },
    noiseCv: kind.noiseCv,
  };
}

/** As scaleCoefficients, loading the model's reference kind (unless `kind` is it). */
export function coefficientsFor(model: ModelProfile, kind: NodeKind): TruthSpec {
  const reference = kind.name === model.coefficientsNodeKind ? kind : loadNodeKind(model.coefficientsNodeKind);
  return scaleCoefficients(model, kind, reference);
}
