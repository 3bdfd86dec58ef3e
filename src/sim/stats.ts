/** Small numeric helpers for metrics. Percentiles interpolate linearly between ranks. */
export function mean(values: readonly number[] | Float64Array): number {
  if (values.length === 0) return 0;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

export function percentileSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

export interface Summary {
  mean: number;
  p50: number;
  p95: number;
}

export function summarize(values: readonly number[] | Float64Array): Summary {
  const sorted = Float64Array.from(values).sort();
  return { mean: mean(values), p50: percentileSorted(sorted as unknown as number[], 50), p95: percentileSorted(sorted as unknown as number[], 95) };
}

/** Round for reports so that JSON output is stable and readable. */
export function round(value: number, digits = 4): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
