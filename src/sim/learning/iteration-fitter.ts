import type { DecodeCoefficients, PrefillCoefficients } from '../perf/coefficients.js';
import { reciprocalCondition } from './conditioning.js';
import { nnls } from './nnls.js';
import { coefficientCovariance } from './precision.js';
import { decodeFeatures, predictDecode, predictPrefill, prefillFeatures, type DecodeSample, type PrefillSample } from './samples.js';

export * from './samples.js';
export { reciprocalCondition } from './conditioning.js';

/**
 * Online learning of the iteration-time model (ARCHITECTURE.md section 3):
 * the engine does not know the truth, so it records what its iterations took
 * and fits
 *
 *   T_P = c0 + c1*sum(t_uc) + c2*sum(A) + c3*sum(t_rst)
 *   T_D = d0 + d1*phi(B) + d2*B,   phi(B) = 1 - (1 - k/E)^(t_fwd*B)
 *
 * by non-negative least squares over the samples of the most recent fixed
 * time windows. The fit minimises the *relative* error (each row is divided
 * by its measured time): routing and planning care about percentage errors,
 * and an absolute fit would let a few long 16K-token iterations swamp the
 * short ones. The engine's decode model has no context term; the fit absorbs
 * that effect (a few percent) as error.
 */

/** One phase's fit: its coefficients, the samples it used, whether NNLS met its optimality conditions. */
export interface PhaseFit<C> {
  coefficients: C;
  samples: number;
  converged: boolean;
  /**
   * Covariance of the coefficients in feature order (prefill c0..c3, decode
   * d0..d2), from the relative residuals; null if it cannot be estimated.
   * predictionError(covariance, features) is a prediction's standard error.
   */
  covariance: number[][] | null;
}

export interface FittedCoefficients {
  prefill: PrefillCoefficients;
  decode: DecodeCoefficients;
  /** Samples each fit used. */
  prefillSamples: number;
  decodeSamples: number;
  /** Both NNLS solves met their optimality conditions within the iteration cap. */
  converged: boolean;
}

/** Mean absolute percentage errors as fractions (0.05 = 5%); null where there was no sample of that kind. */
export interface FitError {
  singlePrefill: number | null;
  batchedPrefill: number | null;
  decode: number | null;
  counts: { singlePrefill: number; batchedPrefill: number; decode: number };
}

export interface IterationFitterOptions {
  /** Length of one time window (seconds). Default 60. */
  windowSeconds?: number;
  /** How many most recent windows the fit uses. Default 10. */
  windows?: number;
  /** Per phase and window, samples beyond this are dropped. Default 2000. */
  maxSamplesPerWindow?: number;
  /** Minimum samples of each phase before fit() answers. Default 24. */
  minSamples?: number;
  /** Minimum distinct values of sum t_uc (prefill) and of B (decode). Default 4. */
  minDistinct?: number;
  /**
   * Minimum reciprocal condition number (smallest over largest singular
   * value) of the column-normalised, relative-weighted design restricted to
   * the terms that must be identified (c0..c2, d0..d2). Guards against data
   * that cannot separate the terms, e.g. only large batches, where phi(B) is
   * constant. Default 1e-3.
   */
  minRcond?: number;
  /**
   * A prior the fits shrink towards: maximum a posteriori with an
   * independent Gaussian prior of standard deviation relativeSd x value on
   * each coefficient (one with a prior value of 0 has none). Terms the data
   * pins down hardly move (their error is far below relativeSd); terms it
   * cannot see stay near the prior instead of collapsing to 0, e.g. the
   * fixed cost c0 while the warm-up shows only long cold prompts. Default: none.
   */
  prior?: { prefill: PrefillCoefficients; decode: DecodeCoefficients; relativeSd: number };
  /**
   * Upper bounds on coefficients that physics caps, e.g. the restore cost c3
   * (at most the KV bytes of a token over the host->GPU link, when none of
   * the copy hides under compute). Default: none.
   */
  upperBounds?: { prefill?: Partial<PrefillCoefficients>; decode?: Partial<DecodeCoefficients> };
}

interface Window<T> {
  index: number;
  samples: T[];
}

export class IterationFitter {
  private readonly windowSeconds: number;
  private readonly windowCount: number;
  private readonly maxPerWindow: number;
  private readonly minSamples: number;
  private readonly minDistinct: number;
  private readonly minRcond: number;
  private readonly prior: IterationFitterOptions['prior'];
  private readonly upper: NonNullable<IterationFitterOptions['upperBounds']>;
  private readonly prefillWindows: Window<PrefillSample>[] = [];
  private readonly decodeWindows: Window<DecodeSample>[] = [];
  private newestWindow = -Infinity;
  private cachedPrefill: PhaseFit<PrefillCoefficients> | null | undefined = undefined;
  private cachedDecode: PhaseFit<DecodeCoefficients> | null | undefined = undefined;
  /** Samples dropped because their window was full or already expired. */
  dropped = 0;

  constructor(options: IterationFitterOptions = {}) {
    this.windowSeconds = options.windowSeconds ?? 60;
    this.windowCount = options.windows ?? 10;
    this.maxPerWindow = options.maxSamplesPerWindow ?? 2000;
    this.minSamples = options.minSamples ?? 24;
    this.minDistinct = options.minDistinct ?? 4;
    this.minRcond = options.minRcond ?? 1e-3;
    this.prior = options.prior;
    this.upper = options.upperBounds ?? {};
    if (this.prior && !(this.prior.relativeSd > 0)) throw new RangeError(`prior.relativeSd must be positive, got ${this.prior.relativeSd}`);
    if (!(this.windowSeconds > 0)) throw new RangeError(`windowSeconds must be positive, got ${this.windowSeconds}`);
    if (!(Number.isInteger(this.windowCount) && this.windowCount >= 1)) throw new RangeError(`windows must be an integer >= 1`);
    if (!(this.maxPerWindow >= 1)) throw new RangeError(`maxSamplesPerWindow must be >= 1`);
    if (!(this.minSamples >= 4)) throw new RangeError(`minSamples must be >= 4 (four prefill terms)`);
    if (!(this.minRcond >= 0)) throw new RangeError(`minRcond must be >= 0`);
  }

  addPrefill(sample: PrefillSample): void {
    checkFinite(sample.at, 'at');
    checkPositive(sample.seconds, 'seconds');
    if (!(Number.isInteger(sample.requests) && sample.requests >= 1)) throw new RangeError(`requests must be an integer >= 1, got ${sample.requests}`);
    checkNonNegative(sample.uncachedTokens, 'uncachedTokens');
    checkNonNegative(sample.attentionPairs, 'attentionPairs');
    checkNonNegative(sample.restoredTokens, 'restoredTokens');
    if (this.add(this.prefillWindows, sample)) this.cachedPrefill = undefined;
  }

  addDecode(sample: DecodeSample): void {
    checkFinite(sample.at, 'at');
    checkPositive(sample.seconds, 'seconds');
    checkPositive(sample.batchSize, 'batchSize');
    checkPositive(sample.tokensFed, 'tokensFed');
    if (!(sample.expertRatio > 0 && sample.expertRatio <= 1)) throw new RangeError(`expertRatio must be in (0, 1], got ${sample.expertRatio}`);
    if (this.add(this.decodeWindows, sample)) this.cachedDecode = undefined;
  }

  /** Retained samples, oldest window first. */
  prefillSamples(): PrefillSample[] {
    return this.prefillWindows.flatMap((w) => w.samples);
  }

  decodeSamples(): DecodeSample[] {
    return this.decodeWindows.flatMap((w) => w.samples);
  }

  /** Coefficients fitted on the retained windows, or null until both phases have enough samples of enough variety. */
  fit(): FittedCoefficients | null {
    const p = this.fitPrefill();
    const d = this.fitDecode();
    if (p === null || d === null) return null;
    return {
      prefill: p.coefficients,
      decode: d.coefficients,
      prefillSamples: p.samples,
      decodeSamples: d.samples,
      converged: p.converged && d.converged,
    };
  }

  /** The prefill fit alone, or null until the prefill samples are enough and varied enough. */
  fitPrefill(): PhaseFit<PrefillCoefficients> | null {
    if (this.cachedPrefill === undefined) this.cachedPrefill = this.computePrefill();
    return this.cachedPrefill;
  }

  /** The decode fit alone, or null until the decode samples are enough and varied enough. */
  fitDecode(): PhaseFit<DecodeCoefficients> | null {
    if (this.cachedDecode === undefined) this.cachedDecode = this.computeDecode();
    return this.cachedDecode;
  }

  /**
   * Mean absolute percentage error of the fitted model against `truth`, on
   * the given samples (default: the retained ones), split into
   * single-request prefill, batched prefill and decode. Null before a fit.
   */
  error(
    truth: (sample: PrefillSample | DecodeSample) => number,
    samples: { prefill?: readonly PrefillSample[]; decode?: readonly DecodeSample[] } = {},
  ): FitError | null {
    const fitted = this.fit();
    if (fitted === null) return null;
    const acc = { single: [0, 0], batched: [0, 0], decode: [0, 0] };
    const record = (slot: number[], predicted: number, actual: number): void => {
      if (!(actual > 0)) throw new RangeError(`truth must be positive, got ${actual}`);
      slot[0] += Math.abs(predicted - actual) / actual;
      slot[1] += 1;
    };
    for (const s of samples.prefill ?? this.prefillSamples()) {
      record(s.requests === 1 ? acc.single : acc.batched, predictPrefill(fitted.prefill, s), truth(s));
    }
    for (const s of samples.decode ?? this.decodeSamples()) {
      record(acc.decode, predictDecode(fitted.decode, s), truth(s));
    }
    const mean = (slot: number[]): number | null => (slot[1] === 0 ? null : slot[0] / slot[1]);
    return {
      singlePrefill: mean(acc.single),
      batchedPrefill: mean(acc.batched),
      decode: mean(acc.decode),
      counts: { singlePrefill: acc.single[1], batchedPrefill: acc.batched[1], decode: acc.decode[1] },
    };
  }

  /** Adds a sample to its window; true if it was kept. */
  private add<T extends { at: number }>(windows: Window<T>[], sample: T): boolean {
    const index = Math.floor(sample.at / this.windowSeconds);
    if (index > this.newestWindow) {
      this.newestWindow = index;
      if (this.expire(this.prefillWindows)) this.cachedPrefill = undefined;
      if (this.expire(this.decodeWindows)) this.cachedDecode = undefined;
    }
    if (index <= this.newestWindow - this.windowCount) {
      this.dropped++;
      return false;
    }
    let w = windows.find((x) => x.index === index);
    if (w === undefined) {
      w = { index, samples: [] };
      windows.push(w);
      windows.sort((a, b) => a.index - b.index);
    }
    if (w.samples.length >= this.maxPerWindow) {
      this.dropped++;
      return false;
    }
    w.samples.push(sample);
    return true;
  }

  /** Drops windows too old to keep; true if any went. */
  private expire<T>(windows: Window<T>[]): boolean {
    const before = windows.length;
    while (windows.length > 0 && windows[0].index <= this.newestWindow - this.windowCount) windows.shift();
    return windows.length !== before;
  }

  private computePrefill(): PhaseFit<PrefillCoefficients> | null {
    const prefill = this.prefillSamples();
    if (prefill.length < this.minSamples) return null;
    if (distinct(prefill.map((s) => s.uncachedTokens)) < this.minDistinct) return null;
    const rows = prefill.map((s) => prefillFeatures(s).map((f) => f / s.seconds));
    if (reciprocalCondition(rows, [0, 1, 2]) < this.minRcond) return null;
    const prior = this.prior ? [this.prior.prefill.c0, this.prior.prefill.c1, this.prior.prefill.c2, this.prior.prefill.c3] : null;
    const ub = this.upper.prefill ?? {};
    const p = this.solve(rows, prior, [ub.c0, ub.c1, ub.c2, ub.c3]);
    return { coefficients: { c0: p.x[0], c1: p.x[1], c2: p.x[2], c3: p.x[3] }, samples: prefill.length, converged: p.converged, covariance: p.covariance };
  }

  private computeDecode(): PhaseFit<DecodeCoefficients> | null {
    const decode = this.decodeSamples();
    if (decode.length < this.minSamples) return null;
    if (distinct(decode.map((s) => s.batchSize)) < this.minDistinct) return null;
    const rows = decode.map((s) => decodeFeatures(s).map((f) => f / s.seconds));
    if (reciprocalCondition(rows, [0, 1, 2]) < this.minRcond) return null;
    const prior = this.prior ? [this.prior.decode.d0, this.prior.decode.d1, this.prior.decode.d2] : null;
    const ub = this.upper.decode ?? {};
    const d = this.solve(rows, prior, [ub.d0, ub.d1, ub.d2]);
    return { coefficients: { d0: d.x[0], d1: d.x[1], d2: d.x[2] }, samples: decode.length, converged: d.converged, covariance: d.covariance };
  }

  /**
   * NNLS on the relative-weighted rows (target 1 each). With a prior, one
   * pseudo-row per coefficient is added, s/(relativeSd*p_j) on its column
   * with target s/relativeSd, s the residual standard deviation of a plain
   * first solve: the squared error of a data row then counts 1/s^2 and
   * (x_j - p_j)^2 counts 1/(relativeSd*p_j)^2 (maximum a posteriori). A
   * coefficient that comes out above its upper bound is fixed at the bound
   * and the others are solved again (for this convex problem the bounded
   * optimum then has it at the bound). The covariance is that of the whole
   * problem, bounds ignored: a coefficient held at a bound is not known.
   */
  private solve(rows: readonly number[][], prior: readonly number[] | null, upper: readonly (number | undefined)[]): SolveResult {
    const n = rows[0]!.length;
    const aug = rows.slice();
    const b = rows.map(() => 1);
    const first = nnls(aug, b);
    if (prior !== null) {
      const s = Math.max(1e-4, first.residualNorm / Math.sqrt(Math.max(1, rows.length - n)));
      const sd = this.prior!.relativeSd;
      for (let j = 0; j < n; j++) {
        if (!(prior[j]! > 0)) continue;
        const row = new Array<number>(n).fill(0);
        row[j] = s / (sd * prior[j]!);
        aug.push(row);
        b.push(s / sd);
      }
    }
    const fixed = new Map<number, number>();
    for (;;) {
      const free = Array.from({ length: n }, (_, j) => j).filter((j) => !fixed.has(j));
      const sub = aug.map((row) => free.map((j) => row[j]!));
      const target = aug.map((row, i) => {
        let t = b[i]!;
        for (const [j, v] of fixed) t -= row[j]! * v;
        return t;
      });
      const r = prior === null && fixed.size === 0 ? first : nnls(sub, target);
      const x = new Array<number>(n).fill(0);
      for (const [j, v] of fixed) x[j] = v;
      free.forEach((j, i) => (x[j] = r.x[i]!));
      const over = free.filter((j) => upper[j] !== undefined && x[j]! > upper[j]!);
      if (over.length === 0 || over.length === free.length) {
        for (const j of over) x[j] = upper[j]!;
        return { x, converged: r.converged, covariance: coefficientCovariance(aug, x, b, rows.length) };
      }
      for (const j of over) fixed.set(j, upper[j]!);
    }
  }
}

interface SolveResult {
  x: number[];
  converged: boolean;
  covariance: number[][] | null;
}

function distinct(values: readonly number[]): number {
  return new Set(values).size;
}

function checkFinite(v: number, name: string): void {
  if (!Number.isFinite(v)) throw new RangeError(`${name} must be finite, got ${v}`);
}

function checkPositive(v: number, name: string): void {
  if (!(v > 0 && Number.isFinite(v))) throw new RangeError(`${name} must be positive, got ${v}`);
}

function checkNonNegative(v: number, name: string): void {
  if (!(v >= 0 && Number.isFinite(v))) throw new RangeError(`${name} must be >= 0, got ${v}`);
}
