import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { leastSquares, nnls } from '../../../src/sim/learning/nnls.js';

/** Independent reference: normal equations by Gaussian elimination with partial pivoting (fine on well-scaled tests). */
function normalEquations(A: number[][], b: number[], cols: number[]): number[] | null {
  const k = cols.length;
  const M = Array.from({ length: k }, (_, r) => {
    const row = new Array<number>(k + 1).fill(0);
    for (let c = 0; c < k; c++) for (let i = 0; i < A.length; i++) row[c] += A[i][cols[r]] * A[i][cols[c]];
    for (let i = 0; i < A.length; i++) row[k] += A[i][cols[r]] * b[i];
    return row;
  });
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    if (Math.abs(M[p][c]) < 1e-12) return null;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let j = c; j <= k; j++) M[r][j] -= f * M[c][j];
    }
  }
  return M.map((row, c) => row[k] / row[c]);
}

function residual(A: number[][], b: number[], x: number[]): number[] {
  return A.map((row, i) => row.reduce((s, v, j) => s + v * x[j], 0) - b[i]);
}

function norm(v: number[]): number {
  return Math.sqrt(v.reduce((s, e) => s + e * e, 0));
}

/** Brute force: the best solution over all 2^n passive sets whose unconstrained solution is feasible. */
function bruteForce(A: number[][], b: number[]): { x: number[]; residualNorm: number } {
  const n = A[0].length;
  let best = { x: new Array<number>(n).fill(0), residualNorm: norm(b) };
  for (let mask = 1; mask < 1 << n; mask++) {
    const cols = [...Array(n).keys()].filter((j) => mask & (1 << j));
    const s = normalEquations(A, b, cols);
    if (s === null || s.some((v) => v < 0)) continue;
    const x = new Array<number>(n).fill(0);
    cols.forEach((j, i) => (x[j] = s[i]));
    const r = norm(residual(A, b, x));
    if (r < best.residualNorm) best = { x, residualNorm: r };
  }
  return best;
}

/** KKT: x >= 0, w = A^T(b - Ax) <= 0 everywhere and = 0 where x > 0 (relative to column and b norms). */
function expectKkt(A: number[][], b: number[], x: number[], tol = 1e-8): void {
  const r = residual(A, b, x).map((v) => -v);
  const bn = norm(b);
  for (let j = 0; j < x.length; j++) {
    expect(x[j]).toBeGreaterThanOrEqual(0);
    const colNorm = norm(A.map((row) => row[j]));
    const w = A.reduce((s, row, i) => s + row[j] * r[i], 0) / (colNorm * bn);
    expect(w, `w[${j}]`).toBeLessThanOrEqual(tol);
    if (x[j] > 0) expect(Math.abs(w), `|w[${j}]| with x>0`).toBeLessThanOrEqual(tol);
  }
}

function randomMatrix(rng: Rng, m: number, n: number): number[][] {
  return Array.from({ length: m }, () => Array.from({ length: n }, () => rng.normal()));
}

describe('nnls', () => {
  it('matches unconstrained least squares when that solution is positive', () => {
    const A = [
      [1, 2, 0.5],
      [1, -1, 2],
      [1, 0.3, -1],
      [1, 4, 1],
      [1, -2, 3],
    ];
    const b = [4.1, 2.9, 0.7, 7.2, 3.1];
    const ls = normalEquations(A, b, [0, 1, 2])!;
    expect(ls.every((v) => v > 0)).toBe(true);
    const res = nnls(A, b);
    expect(res.converged).toBe(true);
    res.x.forEach((v, j) => expect(v).toBeCloseTo(ls[j], 10));
    expect(res.residualNorm).toBeCloseTo(norm(residual(A, b, ls)), 10);
    leastSquares(A, b).forEach((v, j) => expect(v).toBeCloseTo(ls[j], 10));
  });

  it('clamps a negative least-squares component to 0 and stays optimal (KKT)', () => {
    // b is built with a negative weight on the last column.
    const A = [
      [1, 0, 1],
      [0, 1, 1],
      [1, 1, 0],
      [1, 2, 1],
      [2, 1, 1],
    ];
    const truth = [1, 2, -1.5];
    const bb = A.map((row) => row.reduce((s, v, j) => s + v * truth[j], 0));
    const ls = normalEquations(A, bb, [0, 1, 2])!;
    expect(ls[2]).toBeLessThan(0);
    const res = nnls(A, bb);
    expect(res.x[2]).toBe(0);
    expectKkt(A, bb, res.x);
    const brute = bruteForce(A, bb);
    expect(res.residualNorm).toBeCloseTo(brute.residualNorm, 10);
  });

  it('returns 0 when every column points away from b', () => {
    const A = [
      [1, 2],
      [1, 1],
    ];
    const res = nnls(A, [-1, -1]);
    expect(res.x).toEqual([0, 0]);
    expect(res.residualNorm).toBeCloseTo(Math.SQRT2, 12);
    expect(res.converged).toBe(true);
  });

  it('recovers exact coefficients 10 orders of magnitude apart on noise-free iteration data', () => {
    const truth = [0.015, 3.2e-5, 5e-10, 6e-8];
    const rng = new Rng(7);
    const A: number[][] = [];
    for (let i = 0; i < 60; i++) {
      const tuc = rng.int(100, 16_000);
      const tc = rng.chance(0.3) ? 0 : rng.int(0, 150_000);
      const trst = rng.chance(0.5) ? 0 : rng.int(0, tc);
      A.push([1, tuc, tuc * tc + (tuc * (tuc + 1)) / 2, trst]);
    }
    const b = A.map((row) => row.reduce((s, v, j) => s + v * truth[j], 0));
    const res = nnls(A, b);
    expect(res.converged).toBe(true);
    res.x.forEach((v, j) => expect(Math.abs(v / truth[j] - 1), `x[${j}]`).toBeLessThan(1e-8));
    expect(res.residualNorm / norm(b)).toBeLessThan(1e-12);
  });

  it('ignores a zero column and handles m < n', () => {
    const res = nnls(
      [
        [1, 0, 2],
        [3, 0, 1],
      ],
      [3, 4],
    );
    expect(res.x[1]).toBe(0);
    expect(res.residualNorm).toBeLessThan(1e-12);
    const under = nnls([[1, 1, 1]], [3]);
    expect(under.residualNorm).toBeLessThan(1e-12);
    expect(under.x.every((v) => v >= 0)).toBe(true);
  });

  it('agrees with brute force over all active sets on seeded random 3-unknown problems', () => {
    const rng = new Rng('nnls-brute');
    let clamped = 0;
    for (let trial = 0; trial < 400; trial++) {
      const m = rng.int(3, 12);
      const A = randomMatrix(rng, m, 3);
      // Vary column scales over several orders of magnitude.
      const scales = [1, Math.pow(10, rng.uniform(-4, 4)), Math.pow(10, rng.uniform(-4, 4))];
      for (const row of A) for (let j = 0; j < 3; j++) row[j] *= scales[j];
      const b = Array.from({ length: m }, () => rng.normal());
      const res = nnls(A, b);
      const brute = bruteForce(A, b);
      expect(res.converged).toBe(true);
      expect(res.iterations).toBeLessThanOrEqual(30 * 3 + 30);
      expect(Math.abs(res.residualNorm - brute.residualNorm)).toBeLessThanOrEqual(1e-9 * Math.max(1, brute.residualNorm));
      res.x.forEach((v, j) => expect(Math.abs(v - brute.x[j]) * scales[j]).toBeLessThan(1e-7));
      expectKkt(A, b, res.x, 1e-9);
      if (res.x.some((v) => v === 0)) clamped++;
    }
    // The random problems exercise the constraint, not only interior solutions.
    expect(clamped).toBeGreaterThan(100);
  });

  it('stops at the iteration cap and reports it', () => {
    const rng = new Rng(3);
    const A = randomMatrix(rng, 10, 4);
    const b = A.map((row) => row[0] + row[1] + row[2] + row[3]);
    const capped = nnls(A, b, { maxIterations: 1 });
    expect(capped.iterations).toBe(1);
    expect(capped.converged).toBe(false);
    expect(capped.x.every((v) => v >= 0)).toBe(true);
    const full = nnls(A, b);
    expect(full.converged).toBe(true);
    full.x.forEach((v) => expect(v).toBeCloseTo(1, 9));
  });

  it('rejects malformed input', () => {
    expect(() => nnls([[1, 2], [1]], [1, 2])).toThrow(RangeError);
    expect(() => nnls([[1]], [1, 2])).toThrow(RangeError);
    expect(() => nnls([[NaN]], [1])).toThrow(RangeError);
    expect(() => nnls([[1]], [1], { maxIterations: 0 })).toThrow(RangeError);
  });
});
