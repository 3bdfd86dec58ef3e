import type { DecodeCoefficients, DecodeShape, PrefillCoefficients } from '../perf/coefficients.js';
import { decodeIterationTime, prefillIterationTime, type PrefillWork } from '../perf/formulas.js';
import type { IterationModel } from '../perf/iteration-model.js';
import type { EngineCoefficients } from './prior.js';

/** Where the engine's current coefficients of a phase come from. */
export type ModelSource = 'prior' | 'fitted';

/**
 * The engine's iteration-time model of one node kind, shared by every node of
 * that kind: what routing (predicted TTFT) and policies (ctx.model) see. Each
 * phase starts from the prior and takes the fitted coefficients once its
 * online fit converges. It has no decode context term (the fit absorbs that
 * effect as error).
 */
export class LearnedIterationModel implements IterationModel {
  private prefill: PrefillCoefficients;
  private decode: DecodeCoefficients;
  private readonly sources: { prefill: ModelSource; decode: ModelSource } = { prefill: 'prior', decode: 'prior' };

  constructor(
    readonly kind: string,
    /** k of E routed experts and t_fwd: phi(B)'s shape, known from the model's architecture. */
    readonly shape: DecodeShape,
    readonly prior: EngineCoefficients,
  ) {
    this.prefill = { ...prior.prefill };
    this.decode = { ...prior.decode };
  }

  get source(): { prefill: ModelSource; decode: ModelSource } {
    return { ...this.sources };
  }

  /** The coefficients in use (a copy). */
  current(): EngineCoefficients {
    return { prefill: { ...this.prefill }, decode: { ...this.decode } };
  }

  adoptPrefill(fitted: PrefillCoefficients): void {
    this.prefill = { ...fitted };
    this.sources.prefill = 'fitted';
  }

  adoptDecode(fitted: DecodeCoefficients): void {
    this.decode = { ...fitted };
    this.sources.decode = 'fitted';
  }

  prefillTime(batch: readonly PrefillWork[]): number {
    return prefillIterationTime(this.prefill, batch);
  }

  decodeTime(batchSize: number, _meanContextTokens: number): number {
    return decodeIterationTime(this.decode, this.shape, batchSize);
  }
}
