import type { SimResult, SliceMetrics } from '../sim/index.js';

/** Serving metrics of one stretch of a run (between two deployments, or any cut points). */
export interface Segment {
  /** Simulated seconds. */
  from: number;
  to: number;
  /** Completed requests per second; null when no slice starts in the segment. */
  throughput: number | null;
  /**
   * TTFT p95 (s): the mean of the slices' p95, weighted by their completions
   * (the slices keep percentiles, not samples); null without completions.
   */
  ttftP95: number | null;
  /** Mean E2E latency (s), exact; null without completions. */
  e2eMean: number | null;
  completions: number;
  /** The split in force at the segment's end. */
  split: string;
  /** Per-minute slices the metrics come from (a slice belongs to the segment its start lies in). */
  slices: number;
}

/**
 * Cut a run into segments at the given simulated times (sorted, duplicates
 * and times outside the run dropped) and compute each one's metrics from the
 * per-minute slices. A slice belongs to the segment in which it starts; the
 * last slice of a run stopped early counts only the seconds it covered.
 */
export function computeSegments(result: Pick<SimResult, 'slices' | 'splitTimeline' | 'simSeconds' | 'finalSplit'>, cuts: readonly number[] = []): Segment[] {
  const end = result.simSeconds;
  const points = [...new Set(cuts.filter((c) => c > 0 && c < end))].sort((a, b) => a - b);
  const bounds = [0, ...points, end];
  const out: Segment[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const from = bounds[i]!;
    const to = bounds[i + 1]!;
    const last = i + 2 === bounds.length;
    const slices = result.slices.filter((s) => s.start >= from && s.start < to);
    out.push(segmentOf(from, to, end, slices, splitAt(result, to, last)));
  }
  return out;
}

function segmentOf(from: number, to: number, runEnd: number, slices: readonly SliceMetrics[], split: string): Segment {
  let seconds = 0;
  let completions = 0;
  let e2e = 0;
  let ttft = 0;
  for (const s of slices) {
    seconds += Math.max(0, Math.min(s.end, runEnd) - s.start);
    completions += s.completions;
    e2e += s.e2eMean * s.completions;
    ttft += s.ttftP95 * s.completions;
  }
  return {
    from,
    to,
    throughput: seconds > 0 ? completions / seconds : null,
    ttftP95: completions > 0 ? ttft / completions : null,
    e2eMean: completions > 0 ? e2e / completions : null,
    completions,
    split,
    slices: slices.length,
  };
}

function splitAt(result: Pick<SimResult, 'splitTimeline' | 'finalSplit'>, t: number, last: boolean): string {
  if (last) return result.finalSplit;
  let split = result.splitTimeline[0]?.split ?? result.finalSplit;
  for (const e of result.splitTimeline) {
    if (e.at < t) split = e.split;
    else break;
  }
  return split;
}
