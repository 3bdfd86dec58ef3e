import type { DecodeCoefficients, PrefillCoefficients } from '../perf/coefficients.js';
import { attentionPairs, type PrefillWork } from '../perf/formulas.js';
import { nnls } from './nnls.js';

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

/** One measured prefill iteration, as sums over the requests of its batch. */
export interface PrefillSample {
  /** Simulation time of the iteration (seconds); selects its window. */
  at: number;
  /** Requests in the batch (1 = single-request prefill). */
  requests: number;
  /** sum t_uc. */
  uncachedTokens: number;
  /** sum A, A = t_uc*t_c + t_uc*(t_uc+1)/2. */
  attentionPairs: number;
  /** sum t_rst. */
  restoredTokens: number;
  /** Measured duration (seconds). */
  seconds: number;
}

/** One measured decode iteration. */
export interface DecodeSample {
  /** Simulation time of the iteration (seconds); selects its window. */
  at: number;
  /** B: running requests. */
  batchSize: number;
  /** t_fwd: tokens fed per request per iteration. */
  tokensFed: number;
  /** k/E: share of routed experts each token activates. */
  expertRatio: number;
  /** Measured duration (seconds). */
  seconds: number;
  /** Mean context of the batch; not used by the fit (for evaluating against the truth). */
  meanContextTokens?: number;
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
  private readonly prefillWindows: Window<PrefillSample>[] = [];
  private readonly decodeWindows: Window<DecodeSample>[] = [];
  private newestWindow = -Infinity;
  private cached: FittedCoefficients | null | undefined = undefined;
  /** Samples dropped because their window was full or already expired. */
  dropped = 0;

  constructor(options: IterationFitterOptions = {}) {
    this.windowSeconds = options.windowSeconds ?? 60;
    this.windowCount = options.windows ?? 10;
    this.maxPerWindow = options.maxSamplesPerWindow ?? 2000;
    this.minSamples = options.minSamples ?? 24;
    this.minDistinct = options.minDistinct ?? 4;
    this.minRcond = options.minRcond ?? 1e-3;
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
    this.add(this.prefillWindows, sample);
  }

  addDecode(sample: DecodeSample): void {
    checkFinite(sample.at, 'at');
    checkPositive(sample.seconds, 'seconds');
    checkPositive(sample.batchSize, 'batchSize');
    checkPositive(sample.tokensFed, 'tokensFed');
    if (!(sample.expertRatio > 0 && sample.expertRatio <= 1)) throw new RangeError(`expertRatio must be in (0, 1], got ${sample.expertRatio}`);
    this.add(this.decodeWindows, sample);
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
    if (this.cached !== undefined) return this.cached;
    this.cached = this.compute();
    return this.cached;
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

  private add<T extends { at: number }>(windows: Window<T>[], sample: T): void {
    const index = Math.floor(sample.at / this.windowSeconds);
    if (index > this.newestWindow) {
      this.newestWindow = index;
      this.expire(this.prefillWindows);
      this.expire(this.decodeWindows);
    }
    if (index <= this.newestWindow - this.windowCount) {
      this.dropped++;
      return;
    }
    let w = windows.find((x) => x.index === index);
    if (w === undefined) {
      w = { index, samples: [] };
      windows.push(w);
      windows.sort((a, b) => a.index - b.index);
    }
    if (w.samples.length >= this.maxPerWindow) {
      this.dropped++;
      return;
    }
    w.samples.push(sample);
    this.cached = undefined;
  }

  private expire<T>(windows: Window<T>[]): void {
    const before = windows.length;
    while (windows.length > 0 && windows[0].index <= this.newestWindow - this.windowCount) windows.shift();
    if (windows.length !== before) this.cached = undefined;
  }

  private compute(): FittedCoefficients | null {
    const prefill = this.prefillSamples();
    const decode = this.decodeSamples();
    if (prefill.length < this.minSamples || decode.length < this.minSamples) return null;
    if (distinct(prefill.map((s) => s.uncachedTokens)) < this.minDistinct) return null;
    if (distinct(decode.map((s) => s.batchSize)) < this.minDistinct) return null;

    const prefillRows = prefill.map((s) => prefillFeatures(s).map((f) => f / s.seconds));
    const decodeRows = decode.map((s) => decodeFeatures(s).map((f) => f / s.seconds));
    if (reciprocalCondition(prefillRows, [0, 1, 2]) < this.minRcond) return null;
    if (reciprocalCondition(decodeRows, [0, 1, 2]) < this.minRcond) return null;

    const p = nnls(prefillRows, prefillRows.map(() => 1));
    const d = nnls(decodeRows, decodeRows.map(() => 1));
    return {
      prefill: { c0: p.x[0], c1: p.x[1], c2: p.x[2], c3: p.x[3] },
      decode: { d0: d.x[0], d1: d.x[1], d2: d.x[2] },
      prefillSamples: prefill.length,
      decodeSamples: decode.length,
      converged: p.converged && d.converged,
    };
  }
}

/** A prefill sample from the batch an iteration ran. */
export function prefillSampleOf(at: number, batch: readonly PrefillWork[], seconds: number): PrefillSample {
  let uncachedTokens = 0;
  let pairs = 0;
  let restoredTokens = 0;
  for (const w of batch) {
    uncachedTokens += w.uncachedTokens;
    pairs += attentionPairs(w.uncachedTokens, w.cachedTokens);
    restoredTokens += w.restoredTokens;
  }
  return { at, requests: batch.length, uncachedTokens, attentionPairs: pairs, restoredTokens, seconds };
}

export function isDecodeSample(sample: PrefillSample | DecodeSample): sample is DecodeSample {
  return 'batchSize' in sample;
}

/** phi(B) of a decode sample. */
export function sampleCoverage(s: Pick<DecodeSample, 'batchSize' | 'tokensFed' | 'expertRatio'>): number {
  return 1 - Math.pow(1 - s.expertRatio, s.tokensFed * s.batchSize);
}

export function predictPrefill(c: PrefillCoefficients, s: Omit<PrefillSample, 'seconds' | 'at' | 'requests'>): number {
  return c.c0 + c.c1 * s.uncachedTokens + c.c2 * s.attentionPairs + c.c3 * s.restoredTokens;
}

export function predictDecode(d: DecodeCoefficients, s: Pick<DecodeSample, 'batchSize' | 'tokensFed' | 'expertRatio'>): number {
  return d.d0 + d.d1 * sampleCoverage(s) + d.d2 * s.batchSize;
}

function prefillFeatures(s: PrefillSample): number[] {
  return [1, s.uncachedTokens, s.attentionPairs, s.restoredTokens];
}

function decodeFeatures(s: DecodeSample): number[] {
  return [1, sampleCoverage(s), s.batchSize];
}

function distinct(values: readonly number[]): number {
  return new Set(values).size;
}

/**
 * sigma_min / sigma_max of the listed columns of `rows` after normalising
 * each column to unit length, from the eigenvalues of their Gram matrix.
 */
export function reciprocalCondition(rows: readonly (readonly number[])[], cols: readonly number[]): number {
  const k = cols.length;
  const G: number[][] = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (const r of rows) {
    for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) G[a][b] += r[cols[a]] * r[cols[b]];
  }
  const d = G.map((row, a) => Math.sqrt(row[a]));
  if (d.some((v) => v === 0)) return 0;
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) G[a][b] /= d[a] * d[b];
  const eig = symmetricEigenvalues(G);
  const max = Math.max(...eig);
  const min = Math.max(0, Math.min(...eig));
  return max > 0 ? Math.sqrt(min / max) : 0;
}

/** Cyclic Jacobi rotations; fine for the 3x3 and 4x4 Gram matrices here. */
function symmetricEigenvalues(input: readonly (readonly number[])[]): number[] {
  const n = input.length;
  const M = input.map((r) => r.slice());
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += M[p][q] * M[p][q];
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        if (M[p][q] === 0) continue;
        const theta = (M[q][q] - M[p][p]) / (2 * M[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = M[k][p];
          const mkq = M[k][q];
          M[k][p] = c * mkp - s * mkq;
          M[k][q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = M[p][k];
          const mqk = M[q][k];
          M[p][k] = c * mpk - s * mqk;
          M[q][k] = s * mpk + c * mqk;
        }
      }
    }
  }
  return M.map((r, i) => r[i]);
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
