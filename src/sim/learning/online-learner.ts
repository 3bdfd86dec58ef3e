import type { DecodeCoefficients, DecodeShape, PrefillCoefficients } from '../perf/coefficients.js';
import { attentionPairs, type PrefillWork } from '../perf/formulas.js';
import { batchSizeGrid, decodeShift, prefillShift, type DecodeProbes, type PrefillProbe } from './convergence.js';
import { IterationFitter, decodeFeatures, predictDecode, predictPrefill, prefillFeatures, prefillSampleOf, type PhaseFit, type PrefillSample } from './iteration-fitter.js';
import { LearnedIterationModel } from './learned-model.js';
import { predictionError } from './precision.js';
import type { EngineCoefficients } from './prior.js';
import { WorkloadMeter, type WorkloadMeasures } from './workload-meter.js';

/** What the engine knows about one node kind before learning (public facts only). */
export interface KindSetup {
  kind: string;
  shape: DecodeShape;
  prior: EngineCoefficients;
  maxDecodeBatch: number;
}

export interface OnlineLearningOptions {
  /** Length of a fitting window (s); at each window's end the fits are redone and convergence checked. Default 10. */
  windowSeconds?: number;
  /**
   * Two successive window fits of a phase agree when no probed prediction
   * moves by more than this share (prefill: the retained samples' work and
   * the grid of `precision`; decode: its batch grid). Default 0.03.
   */
  tolerance?: number;
  /** Agreements in a row a phase needs to converge (1: the fits at the ends of two consecutive windows agree). Default 1. */
  agreements?: number;
  /**
   * Largest relative standard error the fit may have (its own estimate,
   * from its residuals and the prior) on a grid of common work: prefill 1K
   * to 16K new tokens on 0 to 128K cached ones, a quarter or more of them
   * restored; decode batches 1, 2, 4, ... up to the largest seen. Coverage:
   * the warm-up's first minute is mostly long cold prompts, yet routing
   * will mostly price short appends to long cached contexts. Default 0.03.
   */
  precision?: number;
  /**
   * The fit shrinks towards the prior with this relative standard deviation
   * (1: the prior is trusted within about a factor of two); null: plain
   * NNLS. See IterationFitterOptions.prior. Default 1.
   */
  priorSd?: number | null;
  /** Samples a phase's fit needs before it can count. Default 64. */
  minSamples?: number;
  /** Windows the fit keeps (default 60: ten minutes at 10 s, i.e. everything learned before convergence). */
  windows?: number;
  /** Per phase and window, samples beyond this are dropped. Default 2000. */
  maxSamplesPerWindow?: number;
}

export interface PhaseProgress {
  /** When the phase's first iteration was recorded; null if it never ran one. */
  firstSampleAt: number | null;
  convergedAt: number | null;
  /** Samples the converged fit used (0 before convergence). */
  samples: number;
  /** Samples recorded for fitting (until the phase converged). */
  recorded: number;
}

export interface KindProgress {
  kind: string;
  /** When both phases had converged; null if one never did. */
  convergedAt: number | null;
  prefill: PhaseProgress;
  decode: PhaseProgress;
  prior: EngineCoefficients;
  /** The model in use at the end: fitted phases, prior for a phase that never converged. */
  current: EngineCoefficients;
  fitted: { prefill: PrefillCoefficients | null; decode: DecodeCoefficients | null };
  /** c3 is the prior's: nothing was restored from host memory before the prefill fit converged. */
  restoreFromPrior: boolean;
  remeasured: WorkloadMeasures;
}

/** One window's convergence figures of a phase (for diagnostics). */
export interface WindowCheck {
  at: number;
  phase: 'prefill' | 'decode';
  samples: number;
  /** Largest relative change of a probed prediction since the previous window's fit (null: no previous fit). */
  shift: number | null;
  /** Largest relative standard error of a probed prediction (null: not estimable). */
  error: number | null;
  converged: boolean;
}

/**
 * A generic grid of single-request prefill work that serving commonly runs:
 * 1K to 16K new tokens (a tool result to a full chunk) on 0 to 128K cached
 * ones, with a share of the cached prefix restored from host memory.
 */
const PREFILL_GRID_UNCACHED = [1024, 4096, 16384];
const PREFILL_GRID_CACHED = [0, 32768, 131072];
/** Restored share of the cached prefix in the grid: the share measured so far, but at least this. */
const PREFILL_GRID_MIN_RESTORED_SHARE = 0.25;

/** One phase's convergence state. */
class Phase<C> {
  firstSampleAt: number | null = null;
  last: C | null = null;
  agreements = 0;
  convergedAt: number | null = null;
  fitted: C | null = null;
  samples = 0;
  recorded = 0;

  progress(): PhaseProgress {
    return { firstSampleAt: this.firstSampleAt, convergedAt: this.convergedAt, samples: this.samples, recorded: this.recorded };
  }
}

class KindState {
  readonly fitter: IterationFitter;
  readonly model: LearnedIterationModel;
  readonly meter = new WorkloadMeter();
  readonly expertRatio: number;
  readonly prefill = new Phase<PrefillCoefficients>();
  readonly decode = new Phase<DecodeCoefficients>();
  convergedAt: number | null = null;
  restoringSamples = 0;
  largestBatch = 1;
  restoreFromPrior = false;

  constructor(
    readonly setup: KindSetup,
    fitter: IterationFitter,
  ) {
    this.fitter = fitter;
    this.model = new LearnedIterationModel(setup.kind, setup.shape, setup.prior);
    this.expertRatio = setup.shape.expertsPerToken / setup.shape.routedExperts;
  }
}

/**
 * The engine side of online learning (design in ./README.md). It records
 * what each iteration of a node kind took, refits each phase at the end of
 * every fixed window, and swaps a phase's fit into the kind's engine model
 * once two successive fits agree. It never sees the truth: only the work of
 * an iteration and the time it measured.
 */
export class OnlineLearner {
  readonly windowSeconds: number;
  private readonly tolerance: number;
  private readonly agreementsNeeded: number;
  private readonly minSamples: number;
  private readonly precision: number;
  private readonly kinds = new Map<string, KindState>();
  /** Every window's convergence figures, oldest first. */
  readonly checks: WindowCheck[] = [];

  constructor(setups: readonly KindSetup[], options: OnlineLearningOptions = {}) {
    this.windowSeconds = options.windowSeconds ?? 10;
    this.tolerance = options.tolerance ?? 0.03;
    this.agreementsNeeded = options.agreements ?? 1;
    this.minSamples = options.minSamples ?? 64;
    this.precision = options.precision ?? 0.03;
    if (!(this.windowSeconds > 0)) throw new RangeError(`windowSeconds must be positive, got ${this.windowSeconds}`);
    if (!(this.tolerance > 0)) throw new RangeError(`tolerance must be positive, got ${this.tolerance}`);
    if (!(Number.isInteger(this.agreementsNeeded) && this.agreementsNeeded >= 1)) throw new RangeError('agreements must be an integer >= 1');
    if (!(this.minSamples >= 4)) throw new RangeError(`minSamples must be >= 4, got ${this.minSamples}`);
    for (const setup of setups) {
      if (this.kinds.has(setup.kind)) continue;
      const fitter = new IterationFitter({
        windowSeconds: this.windowSeconds,
        windows: options.windows ?? 60,
        maxSamplesPerWindow: options.maxSamplesPerWindow ?? 2000,
        minSamples: this.minSamples,
        prior: options.priorSd === null ? undefined : { ...setup.prior, relativeSd: options.priorSd ?? 1 },
        // The prior's c3 is the link bound (nothing hidden under compute): restoring cannot cost more.
        upperBounds: { prefill: { c3: setup.prior.prefill.c3 } },
      });
      this.kinds.set(setup.kind, new KindState(setup, fitter));
    }
  }

  /** The engine model of a kind: shared by every node of that kind. */
  model(kind: string): LearnedIterationModel {
    return this.state(kind).model;
  }

  kindNames(): string[] {
    return [...this.kinds.keys()];
  }

  /** Both phases of the kind converged. */
  converged(kind: string): boolean {
    return this.state(kind).convergedAt !== null;
  }

  get allConverged(): boolean {
    for (const k of this.kinds.values()) if (k.convergedAt === null) return false;
    return true;
  }

  /**
   * Each kind's phases that have not converged, with whether any sample was
   * ever recorded for them: such a phase's fit needs minSamples samples, so
   * one that never got any keeps its prior until it gets some.
   */
  openPhases(): { kind: string; phase: 'prefill' | 'decode'; sampled: boolean }[] {
    const open: { kind: string; phase: 'prefill' | 'decode'; sampled: boolean }[] = [];
    for (const k of this.kinds.values()) {
      if (k.prefill.convergedAt === null) open.push({ kind: k.setup.kind, phase: 'prefill', sampled: k.prefill.recorded > 0 });
      if (k.decode.convergedAt === null) open.push({ kind: k.setup.kind, phase: 'decode', sampled: k.decode.recorded > 0 });
    }
    return open;
  }

  /**
   * One prefill iteration of a node of `kind`: its batch and what it took.
   * Until the prefill fit converges it is a fitting sample; afterwards only
   * its workload is measured, and the model's prediction is returned (else null).
   */
  recordPrefill(kind: string, at: number, batch: readonly PrefillWork[], seconds: number): number | null {
    const k = this.state(kind);
    if (k.prefill.convergedAt === null) {
      const sample = prefillSampleOf(at, batch, seconds);
      k.fitter.addPrefill(sample);
      k.prefill.recorded++;
      k.prefill.firstSampleAt ??= at;
      if (sample.restoredTokens > 0) k.restoringSamples++;
      return null;
    }
    const predicted = k.model.prefillTime(batch);
    k.meter.prefill(batch, seconds, predicted);
    return predicted;
  }

  /** One decode epoch (iterations with an unchanged batch of `batchSize`) and its iteration time; as recordPrefill. */
  recordDecode(kind: string, at: number, batchSize: number, seconds: number): number | null {
    const k = this.state(kind);
    if (k.decode.convergedAt === null) {
      k.fitter.addDecode({ at, batchSize, tokensFed: k.setup.shape.tokensFed, expertRatio: k.expertRatio, seconds });
      k.decode.recorded++;
      k.decode.firstSampleAt ??= at;
      k.largestBatch = Math.max(k.largestBatch, batchSize);
      return null;
    }
    const predicted = k.model.decodeTime(batchSize, 0);
    k.meter.decode(batchSize, seconds, predicted);
    return predicted;
  }

  /**
   * The end of a window at time `at`: refit every phase not yet converged and
   * check convergence. Returns the kinds whose both phases converged now.
   */
  closeWindow(at: number): string[] {
    const done: string[] = [];
    for (const k of this.kinds.values()) {
      if (k.convergedAt !== null) continue;
      if (k.prefill.convergedAt === null) {
        const seen = k.fitter.prefillSamples();
        const grid = prefillGrid(seen);
        const fit = this.step('prefill', k.prefill, k.fitter.fitPrefill(), at, {
          shift: (a, b) => Math.max(prefillShift(a, b, seen), prefillShift(a, b, grid)),
          error: (f) => relativeError(f, grid.map((z) => [prefillFeatures(z), predictPrefill(f.coefficients, z)])),
        });
        if (fit) {
          // Without a single restoring sample the data says nothing about c3: it is the prior's link-bound value
          // (with the prior switched off, the fit's 0 is replaced by it).
          k.restoreFromPrior = k.restoringSamples === 0;
          const fitted = { ...fit, c3: k.restoreFromPrior ? k.setup.prior.prefill.c3 : fit.c3 };
          k.prefill.fitted = fitted;
          k.model.adoptPrefill(fitted);
        }
      }
      if (k.decode.convergedAt === null) {
        const probes = this.decodeProbes(k);
        const points = probes.batchSizes.map((batchSize) => ({ batchSize, tokensFed: probes.tokensFed, expertRatio: probes.expertRatio }));
        const fit = this.step('decode', k.decode, k.fitter.fitDecode(), at, {
          shift: (a, b) => decodeShift(a, b, probes),
          error: (f) => relativeError(f, points.map((z) => [decodeFeatures(z), predictDecode(f.coefficients, z)])),
        });
        if (fit) {
          k.decode.fitted = fit;
          k.model.adoptDecode(fit);
        }
      }
      if (k.prefill.convergedAt !== null && k.decode.convergedAt !== null) {
        k.convergedAt = at;
        done.push(k.setup.kind);
      }
    }
    return done;
  }

  progress(): KindProgress[] {
    return [...this.kinds.values()].map((k) => ({
      kind: k.setup.kind,
      convergedAt: k.convergedAt,
      prefill: k.prefill.progress(),
      decode: k.decode.progress(),
      prior: { prefill: { ...k.setup.prior.prefill }, decode: { ...k.setup.prior.decode } },
      current: k.model.current(),
      fitted: { prefill: k.prefill.fitted ? { ...k.prefill.fitted } : null, decode: k.decode.fitted ? { ...k.decode.fitted } : null },
      restoreFromPrior: k.restoreFromPrior,
      remeasured: k.meter.measures(),
    }));
  }

  /**
   * One window's convergence step of a phase; returns the fit when the phase
   * converges now: it has enough samples of enough variety, its predictions
   * are precise (relative standard error) and they agree with the previous
   * window's fit.
   */
  private step<C>(
    name: 'prefill' | 'decode',
    phase: Phase<C>,
    fit: PhaseFit<C> | null,
    at: number,
    judge: { shift: (a: C, b: C) => number; error: (fit: PhaseFit<C>) => number | null },
  ): C | null {
    if (fit === null || !fit.converged || fit.samples < this.minSamples) {
      phase.last = null;
      phase.agreements = 0;
      return null;
    }
    const shift = phase.last !== null ? judge.shift(phase.last, fit.coefficients) : null;
    const error = judge.error(fit);
    const precise = error !== null && error <= this.precision;
    phase.agreements = precise && shift !== null && shift <= this.tolerance ? phase.agreements + 1 : 0;
    phase.last = fit.coefficients;
    const converged = phase.agreements >= this.agreementsNeeded;
    this.checks.push({ at, phase: name, samples: fit.samples, shift, error, converged });
    if (!converged) return null;
    phase.convergedAt = at;
    phase.samples = fit.samples;
    return fit.coefficients;
  }

  /**
   * Decode batches 1, 2, 4, ... up to the largest batch seen. Beyond it the
   * model extrapolates, and requiring it to settle there would keep a
   * low-concurrency warm-up from ever converging; the reported error covers
   * the larger batches the run goes on to serve.
   */
  private decodeProbes(k: KindState): DecodeProbes {
    return {
      batchSizes: batchSizeGrid(Math.min(k.setup.maxDecodeBatch, k.largestBatch)),
      tokensFed: k.setup.shape.tokensFed,
      expertRatio: k.expertRatio,
    };
  }

  private state(kind: string): KindState {
    const k = this.kinds.get(kind);
    if (!k) throw new RangeError(`online learning: unknown node kind ${kind}`);
    return k;
  }
}

/** The prefill grid, restoring the share of the cached prefix measured in `seen` (at least PREFILL_GRID_MIN_RESTORED_SHARE). */
function prefillGrid(seen: readonly PrefillSample[]): PrefillProbe[] {
  let cached = 0;
  let restored = 0;
  for (const s of seen) {
    cached += s.cachedTokens ?? 0;
    restored += s.restoredTokens;
  }
  const share = Math.max(PREFILL_GRID_MIN_RESTORED_SHARE, cached > 0 ? Math.min(1, restored / cached) : 0);
  const grid: PrefillProbe[] = [];
  for (const tuc of PREFILL_GRID_UNCACHED) {
    for (const tc of PREFILL_GRID_CACHED) grid.push({ uncachedTokens: tuc, attentionPairs: attentionPairs(tuc, tc), restoredTokens: share * tc });
  }
  return grid;
}

/** Largest relative standard error over the probes ([features, prediction] pairs); null without a covariance. */
function relativeError<C>(fit: PhaseFit<C>, probes: readonly [number[], number][]): number | null {
  if (fit.covariance === null) return null;
  let worst = 0;
  for (const [z, predicted] of probes) {
    if (!(predicted > 0)) return null;
    worst = Math.max(worst, predictionError(fit.covariance, z) / predicted);
  }
  return worst;
}
