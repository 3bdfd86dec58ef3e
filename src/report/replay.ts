import { computeBreakdown, replaySnapshot, sandboxHook, type Breakdown, type SchedCost, type Snapshot } from '../evaluate/index.js';
import { PolicyFailure, PolicySandbox, type SandboxOptions } from '../sandbox/index.js';
import type { SimResult } from '../sim/index.js';

/**
 * A policy replayed on a snapshot the way the evaluator scores it (same
 * sandbox, sched cost and cap), keeping what the evaluator's summary drops:
 * the per-minute slices and the split timeline, which the report plots.
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

export interface ReplayOptions {
  schedCost: SchedCost;
  sandbox: SandboxOptions;
  capFactor?: number;
}

export function replayPolicy(snapshot: Snapshot, policy: { label: string; candidate: number; code: string }, options: ReplayOptions): PolicyReplay {
  const failures: { kind: string; count: number }[] = [];
  let sandbox: PolicySandbox | undefined;
  try {
    sandbox = PolicySandbox.create(policy.code, { ...options.sandbox, seed: snapshot.seed, name: policy.label });
  } catch (error) {
    // As in evaluatePolicy: a policy that does not load is replayed as the split it cannot change.
    if (!(error instanceof PolicyFailure)) throw error;
    failures.push({ kind: error.kind, count: 1 });
  }
  try {
    const hook = sandbox ? sandboxHook(sandbox, options.schedCost) : undefined;
    const { sim } = replaySnapshot(snapshot, hook, options.capFactor ?? 4);
    for (const f of sim.policy.failures) failures.push({ kind: f.kind, count: f.count });
    const { tTotal, breakdown } = computeBreakdown(sim, snapshot.warmupSeconds, snapshot.roles.length, sim.policy.scoredCpuSeconds);
    return { label: policy.label, candidate: policy.candidate, tTotal, breakdown, warmupMinutes: snapshot.warmupSeconds / 60, ...series(sim), failures };
  } finally {
    sandbox?.dispose();
  }
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
