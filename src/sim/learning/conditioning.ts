/** How well the columns of a least-squares problem are conditioned: the fitter refuses ill-posed fits. */

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
