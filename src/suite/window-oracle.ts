import { round } from '../sim/index.js';
import type { SliceCount, SplitRun } from './split-run.js';

/** The oracles' window: the planning window of the reference planner (design section 3). */
export const ORACLE_WINDOW_SECONDS = 600;

export interface StaticBest {
  split: string;
  throughput: number;
  ttftP95: number;
  e2eMean: number;
  tTotal: number;
  drained: boolean;
}

export interface OracleWindow {
  start: number;
  end: number;
  /** The split with the most completions in this window (ties: the earlier candidate). */
  split: string;
  completions: number;
}

export interface WindowOracle {
  throughput: number;
  windowSeconds: number;
  /** The period the windows tile: from the warm-up end to the end of the best static run. */
  from: number;
  to: number;
  windows: OracleWindow[];
}

/**
 * Best static split: the run with the highest scored throughput (the same
 * metric evaluatePolicy reports); ties go to the earlier candidate.
 */
export function bestStatic(runs: readonly SplitRun[]): SplitRun {
  if (runs.length === 0) throw new Error('no static runs to pick from');
  let best = runs[0]!;
  for (const r of runs) if (r.rate > best.rate) best = r;
  return best;
}

/**
 * Window oracle. The scored period of the best static run, [warm-up end,
 * its end], is cut into 10-minute windows (the last one shorter); in each
 * window the split with the most completions is taken; the oracle's
 * throughput is the sum of those completions over the period's seconds.
 * This is what a perfect planner with free, instant transitions would serve
 * if each window behaved as in the static runs. Because the best static run
 * is one of the candidates, the oracle is never below it.
 *
 * An estimate, not a proof: with closed-loop agents (and trace replays, whose
 * requests wait on earlier ones) what completes in a window depends on the
 * whole history of the run, so the windows of different runs are not
 * interchangeable pieces.
 */
export function windowOracle(runs: readonly SplitRun[], warmupSeconds: number, windowSeconds = ORACLE_WINDOW_SECONDS): WindowOracle {
  const best = bestStatic(runs);
  const from = warmupSeconds;
  const to = warmupSeconds + best.scoredSeconds;
  const windows: OracleWindow[] = [];
  let total = 0;
  for (let start = from; start < to - 1e-9; start += windowSeconds) {
    const end = Math.min(start + windowSeconds, to);
    let top: OracleWindow | undefined;
    for (const r of runs) {
      const c = completionsIn(r.slices, start, end);
      if (!top || c > top.completions + 1e-9) top = { start, end, split: r.split, completions: c };
    }
    total += top!.completions;
    windows.push({ ...top!, completions: round(top!.completions, 3) });
  }
  return { throughput: round(to > from ? total / (to - from) : 0), windowSeconds, from, to, windows };
}

/**
 * Completions of a run in [a, b): whole slices inside count fully, a slice
 * cut by a or b counts pro rata (completions taken as spread evenly over it).
 */
export function completionsIn(slices: readonly SliceCount[], a: number, b: number): number {
  let n = 0;
  for (const s of slices) {
    const overlap = Math.min(b, s.end) - Math.max(a, s.start);
    if (overlap <= 1e-9) continue;
    n += overlap >= s.end - s.start - 1e-9 ? s.completions : (s.completions * overlap) / (s.end - s.start);
  }
  return n;
}

export function staticBestOf(runs: readonly SplitRun[]): StaticBest {
  const b = bestStatic(runs);
  return { split: b.split, throughput: b.throughput, ttftP95: b.ttftP95, e2eMean: b.e2eMean, tTotal: b.tTotal, drained: b.drained };
}
