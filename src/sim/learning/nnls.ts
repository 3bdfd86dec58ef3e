/**
 * Non-negative least squares: minimise ||A x - b||_2 subject to x >= 0.
 *
 * Method: the Lawson–Hanson active-set algorithm (Lawson & Hanson, "Solving
 * Least Squares Problems", 1974, ch. 23). Why this one and not a projected
 * gradient or coordinate descent method:
 *  - our problems are tiny and dense (3-4 unknowns, a few hundred rows), so
 *    each step can afford an exact unconstrained least-squares solve on the
 *    passive (free) columns;
 *  - the result is exact (up to rounding): the returned x satisfies the KKT
 *    conditions, it is not an approximation that depends on a step size or a
 *    convergence threshold on the objective;
 *  - it terminates finitely: each outer step strictly lowers the residual and
 *    no passive set repeats, so there are at most 2^n of them (in practice
 *    about n). An iteration cap guards against cycling caused by rounding.
 *
 * Conditioning: the iteration-model features differ by up to ten orders of
 * magnitude (a constant column of 1s next to query-key pair counts ~1e9, and
 * coefficients from c0 ~ 1e-2 s to c2 ~ 1e-10 s per pair). We therefore solve
 * for y = D x with the columns of A divided by their Euclidean norms (D =
 * diag of those norms), which leaves the non-negativity constraints unchanged
 * (D > 0) and makes the KKT test and the rank tests scale-free. The inner
 * solves use Householder QR rather than normal equations, which would square
 * the condition number.
 */

export interface NnlsOptions {
  /**
   * Cap on the number of inner least-squares solves (each outer step does at
   * least one). Default 30 * n + 30.
   */
  maxIterations?: number;
  /**
   * Relative tolerance: a free variable enters the passive set only if its
   * (scaled) gradient component exceeds tolerance * ||b||, and a passive
   * variable counts as zero at or below tolerance * ||b|| (scaled units).
   * Default 1e-12.
   */
  tolerance?: number;
}

export interface NnlsResult {
  /** The solution, x >= 0 componentwise. */
  x: number[];
  /** ||A x - b||_2 on the original (unscaled) problem. */
  residualNorm: number;
  /** Inner least-squares solves performed. */
  iterations: number;
  /** False if the iteration cap stopped the method before the KKT conditions held. */
  converged: boolean;
}

export function nnls(A: readonly (readonly number[])[], b: readonly number[], options: NnlsOptions = {}): NnlsResult {
  const m = A.length;
  if (b.length !== m) throw new RangeError(`nnls: A has ${m} rows but b has ${b.length} entries`);
  const n = m === 0 ? 0 : A[0].length;
  for (let i = 0; i < m; i++) {
    if (A[i].length !== n) throw new RangeError(`nnls: row ${i} has ${A[i].length} columns, expected ${n}`);
    for (let j = 0; j < n; j++) {
      if (!Number.isFinite(A[i][j])) throw new RangeError(`nnls: A[${i}][${j}] is not finite`);
    }
    if (!Number.isFinite(b[i])) throw new RangeError(`nnls: b[${i}] is not finite`);
  }
  const maxIterations = options.maxIterations ?? 30 * n + 30;
  const tolerance = options.tolerance ?? 1e-12;
  if (!(maxIterations >= 1)) throw new RangeError(`nnls: maxIterations must be >= 1, got ${maxIterations}`);
  if (!(tolerance >= 0)) throw new RangeError(`nnls: tolerance must be >= 0, got ${tolerance}`);

  // Column scaling: C = A D^-1, columns of unit norm (zero columns left as they are).
  const scale = new Array<number>(n).fill(1);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += A[i][j] * A[i][j];
    if (s > 0) scale[j] = Math.sqrt(s);
  }
  const C: number[][] = A.map((row) => row.map((v, j) => v / scale[j]));
  const bNorm = norm(b);
  const gradientTol = tolerance * Math.max(bNorm, Number.MIN_VALUE);

  const y = new Array<number>(n).fill(0);
  const passive = new Array<boolean>(n).fill(false);
  let iterations = 0;
  let converged = false;
  // Variables refused at the current point because their solve came out <= 0
  // (rounding); cleared whenever y moves.
  const refused = new Array<boolean>(n).fill(false);

  outer: for (;;) {
    const w = gradient(C, b, y);
    let t = -1;
    let best = gradientTol;
    for (let j = 0; j < n; j++) {
      if (!passive[j] && !refused[j] && w[j] > best) {
        best = w[j];
        t = j;
      }
    }
    if (t < 0) {
      converged = true;
      break;
    }
    passive[t] = true;
    let first = true;
    for (;;) {
      if (iterations >= maxIterations) break outer;
      iterations++;
      const s = solvePassive(C, b, passive);
      if (first && !(s[t] > 0)) {
        // Rounding made the entering column useless; undo and try the next one.
        passive[t] = false;
        refused[t] = true;
        continue outer;
      }
      first = false;
      let feasible = true;
      for (let j = 0; j < n; j++) if (passive[j] && !(s[j] > 0)) feasible = false;
      if (feasible) {
        for (let j = 0; j < n; j++) y[j] = passive[j] ? s[j] : 0;
        refused.fill(false);
        break;
      }
      // Step from y towards s until the first passive variable hits zero.
      let alpha = Infinity;
      let blocking = -1;
      for (let j = 0; j < n; j++) {
        if (passive[j] && !(s[j] > 0)) {
          const a = y[j] / (y[j] - s[j]);
          if (a < alpha) {
            alpha = a;
            blocking = j;
          }
        }
      }
      for (let j = 0; j < n; j++) {
        if (!passive[j]) continue;
        y[j] += alpha * (s[j] - y[j]);
        // The blocking variable is exactly 0 in exact arithmetic; others that
        // rounding leaves at or within tolerance of 0 leave with it.
        if (j === blocking || y[j] <= tolerance * Math.max(bNorm, Number.MIN_VALUE)) {
          y[j] = 0;
          passive[j] = false;
        }
      }
      refused.fill(false);
    }
  }

  const x = y.map((v, j) => Math.max(0, v / scale[j]));
  const r = new Array<number>(m);
  for (let i = 0; i < m; i++) {
    let s = -b[i];
    for (let j = 0; j < n; j++) s += A[i][j] * x[j];
    r[i] = s;
  }
  return { x, residualNorm: norm(r), iterations, converged };
}

/**
 * Unconstrained least squares min ||A x - b|| by Householder QR. Columns that
 * are (numerically) dependent on earlier ones get 0. Exported for the fitter's
 * diagnostics and for tests.
 */
export function leastSquares(A: readonly (readonly number[])[], b: readonly number[]): number[] {
  const n = A.length === 0 ? 0 : A[0].length;
  return solveColumns(A, b, Array.from({ length: n }, (_, j) => j), n);
}

function solvePassive(C: readonly (readonly number[])[], b: readonly number[], passive: readonly boolean[]): number[] {
  const cols: number[] = [];
  for (let j = 0; j < passive.length; j++) if (passive[j]) cols.push(j);
  return solveColumns(C, b, cols, passive.length);
}

/** Least squares on the listed columns of A; the result has length n, 0 outside `cols`. */
function solveColumns(A: readonly (readonly number[])[], b: readonly number[], cols: readonly number[], n: number): number[] {
  const m = A.length;
  const p = cols.length;
  const out = new Array<number>(n).fill(0);
  if (p === 0 || m === 0) return out;
  const R: number[][] = A.map((row) => cols.map((j) => row[j]));
  const q = b.slice();
  const steps = Math.min(p, m);
  for (let k = 0; k < steps; k++) {
    let s = 0;
    for (let i = k; i < m; i++) s += R[i][k] * R[i][k];
    const colNorm = Math.sqrt(s);
    if (colNorm === 0) continue;
    const alpha = R[k][k] > 0 ? -colNorm : colNorm;
    const v = new Array<number>(m - k);
    for (let i = k; i < m; i++) v[i - k] = R[i][k];
    v[0] -= alpha;
    let v2 = 0;
    for (const e of v) v2 += e * e;
    if (v2 === 0) continue;
    for (let j = k; j < p; j++) {
      let d = 0;
      for (let i = k; i < m; i++) d += v[i - k] * R[i][j];
      const f = (2 * d) / v2;
      for (let i = k; i < m; i++) R[i][j] -= f * v[i - k];
    }
    let d = 0;
    for (let i = k; i < m; i++) d += v[i - k] * q[i];
    const f = (2 * d) / v2;
    for (let i = k; i < m; i++) q[i] -= f * v[i - k];
  }
  let maxDiag = 0;
  for (let k = 0; k < steps; k++) maxDiag = Math.max(maxDiag, Math.abs(R[k][k]));
  const small = maxDiag * 1e-13 * Math.max(m, p);
  const z = new Array<number>(p).fill(0);
  for (let k = steps - 1; k >= 0; k--) {
    if (Math.abs(R[k][k]) <= small) continue;
    let s = q[k];
    for (let j = k + 1; j < steps; j++) s -= R[k][j] * z[j];
    z[k] = s / R[k][k];
  }
  for (let k = 0; k < p; k++) out[cols[k]] = z[k];
  return out;
}

/** w = C^T (b - C y): minus the gradient of half the squared residual. */
function gradient(C: readonly (readonly number[])[], b: readonly number[], y: readonly number[]): number[] {
  const n = y.length;
  const w = new Array<number>(n).fill(0);
  for (let i = 0; i < C.length; i++) {
    let r = b[i];
    for (let j = 0; j < n; j++) r -= C[i][j] * y[j];
    for (let j = 0; j < n; j++) w[j] += C[i][j] * r;
  }
  return w;
}

function norm(v: readonly number[]): number {
  // Scaled to avoid overflow/underflow on tiny or huge entries.
  let max = 0;
  for (const e of v) max = Math.max(max, Math.abs(e));
  if (max === 0) return 0;
  let s = 0;
  for (const e of v) s += (e / max) * (e / max);
  return max * Math.sqrt(s);
}
