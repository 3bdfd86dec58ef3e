import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { coefficientCovariance, leastSquares, predictionError } from '../../../src/sim/learning/index.js';

/** s^2 (A^T A)^-1 by the textbook formula (2x2 inverse), for a check. */
function reference(A: number[][], x: number[], b: number[]): number[][] {
  const m = A.length;
  let a = 0;
  let c = 0;
  let d = 0;
  let rss = 0;
  for (let i = 0; i < m; i++) {
    a += A[i]![0]! * A[i]![0]!;
    c += A[i]![0]! * A[i]![1]!;
    d += A[i]![1]! * A[i]![1]!;
    const r = A[i]![0]! * x[0]! + A[i]![1]! * x[1]! - b[i]!;
    rss += r * r;
  }
  const s2 = rss / (m - 2);
  const det = a * d - c * c;
  return [
    [(s2 * d) / det, (-s2 * c) / det],
    [(-s2 * c) / det, (s2 * a) / det],
  ];
}

describe('coefficientCovariance', () => {
  it('is s^2 (A^T A)^-1, whatever the column scales', () => {
    const rng = new Rng(1);
    const A = Array.from({ length: 50 }, () => [1, rng.uniform(0, 1e9)]);
    const b = A.map((r) => 0.01 + 2e-11 * r[1]! + rng.normal(0, 0.001));
    const x = leastSquares(A, b);
    const cov = coefficientCovariance(A, x, b)!;
    const ref = reference(A, x, b);
    for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) expect(cov[i]![j]! / ref[i]![j]!).toBeCloseTo(1, 6);
    // Prediction error at a point: sqrt(z^T Cov z).
    const z = [1, 5e8];
    const v = z[0]! * z[0]! * cov[0]![0]! + 2 * z[0]! * z[1]! * cov[0]![1]! + z[1]! * z[1]! * cov[1]![1]!;
    expect(predictionError(cov, z)).toBeCloseTo(Math.sqrt(v), 12);
  });

  it('counts a coefficient held at 0 as uncertain, leaves an all-zero column out, and needs more rows than columns', () => {
    const A = [
      [1, 1, 0],
      [1, 2, 0],
      [1, 3, 0],
      [1, 4, 0],
    ];
    const b = [1.1, 0.9, 1.05, 0.95];
    const cov = coefficientCovariance(A, [1, 0, 0], b)!;
    expect(cov[1]![1]!).toBeGreaterThan(0);
    expect(cov[2]![2]!).toBe(0);
    expect(coefficientCovariance(A.slice(0, 2), [1, 0, 0], b.slice(0, 2))).toBeNull();
  });
});
