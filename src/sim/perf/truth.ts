import type { Rng } from '../../common/rng.js';
import type { DecodeCoefficients, DecodeContextTerm, DecodeShape, PrefillCoefficients } from './coefficients.js';
import { decodeContextTime, decodeIterationTime, prefillIterationTime } from './formulas.js';
import type { IterationModel, PrefillWork } from './iteration-model.js';

/** Everything the truth of one (model, node kind) needs; built by profiles/scaling.ts. */
export interface TruthSpec {
  prefill: PrefillCoefficients;
  decode: DecodeCoefficients;
  decodeContext: DecodeContextTerm;
  shape: DecodeShape;
  /** Coefficient of variation of the multiplicative noise on every iteration. */
  noiseCv: number;
}

/** The truth without noise: the formulas plus the context term. */
export class ExpectedTruth implements IterationModel {
  constructor(private readonly spec: TruthSpec) {}

  prefillTime(batch: readonly PrefillWork[]): number {
    return prefillIterationTime(this.spec.prefill, batch);
  }

  decodeTime(batchSize: number, meanContextTokens: number): number {
    return (
      decodeIterationTime(this.spec.decode, this.spec.shape, batchSize) +
      decodeContextTime(this.spec.decodeContext, batchSize, meanContextTokens)
    );
  }
}

/**
 * What an iteration really takes on one node: the expected truth times a
 * lognormal factor of mean 1 and the profile's cv, drawn from the node's own
 * Rng (the simulator owns one truth per node, so nodes do not share streams).
 * Each call draws once; an empty batch takes 0 and draws nothing, so asking
 * about nothing does not shift the stream.
 */
export class IterationTruth implements IterationModel {
  /** The noise-free truth, for tests and for measuring the fitted model's error. */
  readonly expected: ExpectedTruth;

  constructor(
    readonly spec: TruthSpec,
    private readonly rng: Rng,
  ) {
    if (!(spec.noiseCv >= 0)) throw new RangeError(`noiseCv must be >= 0, got ${spec.noiseCv}`);
    this.expected = new ExpectedTruth(spec);
  }

  prefillTime(batch: readonly PrefillWork[]): number {
    if (batch.length === 0) return 0;
    return this.expected.prefillTime(batch) * this.noise();
  }

  decodeTime(batchSize: number, meanContextTokens: number): number {
    if (batchSize <= 0) return 0;
    return this.expected.decodeTime(batchSize, meanContextTokens) * this.noise();
  }

  private noise(): number {
    return this.rng.lognormal(1, this.spec.noiseCv);
  }
}
