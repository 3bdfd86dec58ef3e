import type { Rng } from '../../common/rng.js';
import type { NodeKind } from '../profiles/node-kind.js';

/**
 * Seconds a Dynamo-style restart takes, from a uniform draw u in [0, 1).
 * The calibration gives only a range (666-831 s) and a mean (~754 s), so the
 * law is triangular on [min, max] with the mode that yields that mean
 * (3*mean - min - max); inverse-CDF so the caller owns the random stream.
 */
export function restartSeconds(kind: NodeKind, u: number): number {
  const a = kind.restart.minSeconds;
  const b = kind.restart.maxSeconds;
  if (b === a) return a;
  const c = 3 * kind.restart.meanSeconds - a - b;
  const x = Math.min(Math.max(u, 0), 1);
  const split = (c - a) / (b - a);
  return x < split ? a + Math.sqrt(x * (b - a) * (c - a)) : b - Math.sqrt((1 - x) * (b - a) * (b - c));
}

export function drawRestartSeconds(kind: NodeKind, rng: Rng): number {
  return restartSeconds(kind, rng.next());
}
