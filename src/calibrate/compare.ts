import type { Published, Tolerance } from './targets-schema.js';
import { splitCounts } from './targets.js';

/**
 * Comparison of simulated with published figures. The relative error is
 * signed: (simulated - published) / |published| for a point value (positive
 * when the simulator is above); for a range, the distance past the nearest
 * bound over that bound (negative below, positive above, 0 inside). Null
 * when there is nothing to compare (no simulated value, or a published 0
 * with a simulated value that is not 0).
 */
export function relError(simulated: number | null, published: Published): number | null {
  if (simulated === null || !Number.isFinite(simulated)) return null;
  if (typeof published === 'number') {
    if (published === 0) return simulated === 0 ? 0 : null;
    return (simulated - published) / Math.abs(published);
  }
  if (simulated < published.min) return published.min === 0 ? null : (simulated - published.min) / Math.abs(published.min);
  if (simulated > published.max) return published.max === 0 ? null : (simulated - published.max) / Math.abs(published.max);
  return 0;
}

/**
 * Whether a figure meets its target: a range must contain the value, a point
 * value must be within its tolerance. Null when the figure has no target or
 * no simulated value (reported, not judged).
 */
export function meetsTarget(simulated: number | null, published: Published, tolerance: Tolerance | undefined): boolean | null {
  if (simulated === null || !Number.isFinite(simulated)) return null;
  if (typeof published !== 'number') return simulated >= published.min && simulated <= published.max;
  if (!tolerance) return null;
  if ('abs' in tolerance) return Math.abs(simulated - published) <= tolerance.abs + 1e-12;
  return Math.abs(simulated - published) <= tolerance.rel * Math.abs(published) + 1e-12;
}

/** A tolerance in words, for tables: `±10%`, `±1`, `in range`, or `-`. */
export function describeTarget(published: Published, tolerance: Tolerance | undefined, unit = ''): string {
  if (typeof published !== 'number') return 'in range';
  if (!tolerance) return '-';
  if ('abs' in tolerance) return `±${tolerance.abs}${unit}`;
  return `±${Math.round(tolerance.rel * 100)}%`;
}

export interface BestSplitCheck {
  simulatedBest: string;
  /** True when the simulated best is the published one, or close enough (see checkBestSplit). */
  ok: boolean;
  /** Nodes between the simulated and the published best prefill counts. */
  nodesAway: number;
  /** 1 - throughput(published best) / throughput(simulated best); null if the published split was not run. */
  throughputGap: number | null;
}

/**
 * The simulated best split is the one with the highest throughput (the first
 * in the given order on a tie). It passes when it equals the published best,
 * or is at most `maxNodesAway` prefill nodes from it with the published
 * split's simulated throughput within `maxThroughputGap` of the best.
 */
export function checkBestSplit(
  throughputBySplit: Readonly<Record<string, number>>,
  publishedBest: string,
  rule: { maxNodesAway: number; maxThroughputGap: number },
): BestSplitCheck {
  const entries = Object.entries(throughputBySplit);
  if (entries.length === 0) throw new RangeError('no splits to compare');
  let [simulatedBest, best] = entries[0]!;
  for (const [split, thr] of entries) {
    if (thr > best) {
      simulatedBest = split;
      best = thr;
    }
  }
  const nodesAway = Math.abs(splitCounts(simulatedBest)[0] - splitCounts(publishedBest)[0]);
  const atPublished = throughputBySplit[publishedBest];
  const throughputGap = atPublished === undefined ? null : best > 0 ? 1 - atPublished / best : 0;
  const ok =
    simulatedBest === publishedBest ||
    (nodesAway <= rule.maxNodesAway && throughputGap !== null && throughputGap <= rule.maxThroughputGap + 1e-12);
  return { simulatedBest, ok, nodesAway, throughputGap };
}
