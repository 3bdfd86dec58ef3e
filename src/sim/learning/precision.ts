/**
 * How precisely a least-squares fit pins down its predictions. For the fit
 * of rows A (p non-zero columns) with residuals r on its m data rows, the
 * coefficients have (approximately, ignoring the bounds) covariance
 *
 *   Cov = s^2 (A^T A)^-1,   s^2 = |r|^2 / (m - p)
 *
 * and a prediction z.x has variance z^T Cov z. The
 * Gram matrix is inverted after scaling its columns to unit norm (the
 * features span ten orders of magnitude), by Gauss-Jordan elimination with
 * partial pivoting, which is plenty for at most four columns.
 */

/**
 * Covariance of the coefficients (n x n), or null if it cannot be estimated.
 * All columns that are not identically zero count, including those NNLS
 * held at 0: a term the data cannot pin down must show as uncertain, not as
 * known to be 0. The residual variance comes from the first `dataRows` rows
 * (rows after them are prior pseudo-observations, already scaled by it).
 */
export function coefficientCovariance(rows: readonly (readonly number[])[], x: readonly number[], b: readonly number[], dataRows = rows.length): number[][] | null {
  const n = x.length;
  const cols: number[] = [];
  const scale: number[] = [];
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (const row of rows) s += row[j]! * row[j]!;
    if (s > 0) {
      cols.push(j);
      scale.push(Math.sqrt(s));
    }
  }
  const p = cols.length;
  if (p === 0 || dataRows <= p) return null;
  let rss = 0;
  for (let i = 0; i < dataRows; i++) {
    let r = -b[i]!;
    for (let j = 0; j < n; j++) r += rows[i]![j]! * x[j]!;
    rss += r * r;
  }
  const s2 = rss / (dataRows - p);
  const G: number[][] = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  for (const row of rows) {
    for (let a = 0; a < p; a++) {
      const va = row[cols[a]!]! / scale[a]!;
      if (va === 0) continue;
      for (let c = 0; c < p; c++) G[a]![c]! += va * (row[cols[c]!]! / scale[c]!);
    }
  }
  const inv = invert(G);
  if (inv === null) return null;
  const cov: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let a = 0; a < p; a++) {
    for (let c = 0; c < p; c++) cov[cols[a]!]![cols[c]!] = (s2 * inv[a]![c]!) / (scale[a]! * scale[c]!);
  }
  return cov;
}

/** Standard error of the prediction z.x under `cov`. */
export function predictionError(cov: readonly (readonly number[])[], z: readonly number[]): number {
  let v = 0;
  for (let a = 0; a < z.length; a++) {
    if (z[a] === 0) continue;
    for (let c = 0; c < z.length; c++) v += z[a]! * cov[a]![c]! * z[c]!;
  }
  return Math.sqrt(Math.max(0, v));
}

function invert(input: readonly (readonly number[])[]): number[][] | null {
  const n = input.length;
  const M = input.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(M[r]![col]!) > Math.abs(M[pivot]![col]!)) pivot = r;
    if (!(Math.abs(M[pivot]![col]!) > 1e-12)) return null;
    [M[col], M[pivot]] = [M[pivot]!, M[col]!];
    const d = M[col]![col]!;
    for (let k = 0; k < 2 * n; k++) M[col]![k]! /= d;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = M[r]![col]!;
      if (f === 0) continue;
      for (let k = 0; k < 2 * n; k++) M[r]![k]! -= f * M[col]![k]!;
    }
  }
  return M.map((row) => row.slice(n));
}
