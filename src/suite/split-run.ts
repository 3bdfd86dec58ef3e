import { computeBreakdown, replaySnapshot, snapshotEngineModel, type Snapshot } from '../evaluate/index.js';
import type { Role } from '../sim/index.js';

/** The run cap the suite passes to both the oracle runs and evaluatePolicy (warm-up + window x this), so they score the same interval. */
export const SUITE_CAP_FACTOR = 4;

/** One minute of a static run's scored period: completions in [start, end). `end` is the run's end for its last, partial slice. */
export interface SliceCount {
  start: number;
  end: number;
  completions: number;
}

/** A whole snapshot replayed at one static split with no policy, reduced to what the oracles need. */
export interface SplitRun {
  split: string;
  /** Scored completions / scored seconds, unrounded: what the oracles compare. */
  rate: number;
  /** The evaluator's metric (SimMetrics.throughput, rounded as it is). */
  throughput: number;
  completed: number;
  /** From the end of warm-up to the end of the run (drained, or the cap). */
  scoredSeconds: number;
  drained: boolean;
  ttftP95: number;
  e2eMean: number;
  /** The evaluator's T_total of this run (no policy, so no scheduling time). */
  tTotal: number;
  slices: SliceCount[];
}

/**
 * Replay the snapshot at these roles with no policy: `replaySnapshot` is the
 * same replay `evaluatePolicy` does (same source, cluster, seed, drain rule,
 * cap and the snapshot's engine model, learned at its recorded roles), so the
 * throughput here is directly comparable with a policy's.
 */
export function runStaticSplit(snapshot: Snapshot, split: string, roles: Role[], capFactor = SUITE_CAP_FACTOR): SplitRun {
  const { sim, drained } = replaySnapshot({ ...snapshot, roles }, undefined, capFactor, snapshotEngineModel(snapshot));
  const warmup = snapshot.warmupSeconds;
  const scoredSeconds = sim.simSeconds - warmup;
  const slices: SliceCount[] = [];
  for (const s of sim.slices) {
    // Slices are 60 s from t = 0. A warm-up of whole minutes ends on a slice
    // boundary; otherwise the straddling slice counts pro rata (an estimate).
    const end = Math.min(s.end, sim.simSeconds);
    if (end <= warmup + 1e-9 || s.start >= sim.simSeconds) continue;
    const start = Math.max(s.start, warmup);
    const share = s.start < warmup - 1e-9 ? (end - start) / (end - s.start) : 1;
    slices.push({ start, end, completions: s.completions * share });
  }
  return {
    split,
    rate: scoredSeconds > 0 ? sim.metrics.requestsCompleted / scoredSeconds : 0,
    throughput: sim.metrics.throughput,
    completed: sim.metrics.requestsCompleted,
    scoredSeconds,
    drained,
    ttftP95: sim.metrics.ttft.p95,
    e2eMean: sim.metrics.e2e.mean,
    tTotal: computeBreakdown(sim, warmup, roles.length, 0).tTotal,
    slices,
  };
}
