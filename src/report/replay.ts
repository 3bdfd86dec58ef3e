import { computeBreakdown, type Breakdown, type Snapshot } from '../evaluate/index.js';
import type { SimResult } from '../sim/index.js';

/**
 * A policy replayed on a snapshot the way the evaluator scores it (same
 * sandbox, sched cost and cap), keeping what the evaluator's summary drops:
 * the per-minute slices and the split timeline, which the report plots. The
 * CLI runs the replay (it owns the sandbox); this turns its result into the
 * report's series, with T_total and its breakdown as the evaluator computes them.
 */
export interface MinutePoint {
  /** Minutes since the start of the replay (warm-up included). */
  minute: number;
  scored: boolean;
  throughput: number;
  /** Null for a minute with no completion. */
  ttftP95: number | null;
  split: string;
}

export interface SplitPoint {
  /** Minutes since the start of the replay. */
  minute: number;
  prefill: number;
  split: string;
}

export interface PolicyReplay {
  label: string;
  candidate: number;
  tTotal: number;
  breakdown: Breakdown;
  warmupMinutes: number;
  minutes: MinutePoint[];
  splits: SplitPoint[];
  failures: { kind: string; count: number }[];
}

export function policyReplay(snapshot: Snapshot, policy: { label: string; candidate: number }, sim: SimResult, failures: { kind: string; count: number }[]): PolicyReplay {
  const { tTotal, breakdown } = computeBreakdown(sim, snapshot.warmupSeconds, snapshot.roles.length, sim.policy.scoredCpuSeconds);
  return { label: policy.label, candidate: policy.candidate, tTotal, breakdown, warmupMinutes: snapshot.warmupSeconds / 60, ...series(sim, snapshot.warmupSeconds), failures };
}

/** Per-minute throughput and P95 TTFT, and the split as a step line, from a simulator result. */
export function series(sim: Pick<SimResult, 'slices' | 'splitTimeline' | 'finalSplit'>, warmupSeconds = 0): { minutes: MinutePoint[]; splits: SplitPoint[] } {
  const minutes = sim.slices.map((s) => ({
    minute: round(s.start / 60),
    scored: s.scored || s.start >= warmupSeconds,
    throughput: finite(s.throughput) ?? 0,
    ttftP95: s.completions > 0 ? finite(s.ttftP95) : null,
    split: s.split,
  }));
  const splits = sim.splitTimeline.map((p) => ({ minute: round(p.at / 60), prefill: prefillOf(p.split), split: p.split }));
  return { minutes, splits };
}

export function prefillOf(split: string): number {
  const m = /^(\d+)P/i.exec(split);
  return m ? Number(m[1]) : 0;
}

function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
