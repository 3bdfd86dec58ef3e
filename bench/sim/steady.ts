/**
 * Past-the-start-up figures of bench:scale. A run of one window is its
 * start-up (module loading, JIT warm-up, and above all every agent's first,
 * uncached context: 14,336 of them at 1,024 nodes) plus the cluster running
 * past it. A second run of the same scenario and seed with the window doubled
 * (warm-up and scored minutes both x2) has the same start-up, event for
 * event, so the difference of the two runs is the cluster running past it:
 * its events per CPU second, CPU per request and events per request are the
 * per-event cost without the start-up burst.
 */

/** What a run reports (bench/sim/run-once.ts), as far as these figures need it. */
export interface RunTotals {
  events: number;
  /** Requests arrived over the whole run, warm-up included (the scored window's completions would not difference cleanly). */
  requests: number;
  /** Process CPU seconds. */
  cpu: number;
  simSeconds: number;
}

export interface RunFigures {
  eventsPerCpuSecond: number;
  cpuUsPerRequest: number;
  eventsPerRequest: number;
  /** Simulated seconds per CPU second. */
  realTimeFactor: number;
}

export function figures(t: RunTotals): RunFigures {
  return {
    eventsPerCpuSecond: t.events / t.cpu,
    cpuUsPerRequest: (t.cpu / t.requests) * 1e6,
    eventsPerRequest: t.events / t.requests,
    realTimeFactor: t.simSeconds / t.cpu,
  };
}

/**
 * Below this share of the shorter run's CPU time, the doubled run's extra
 * CPU is not a figure: run-to-run timings on the project's shared VM vary by
 * 30 %, so a small or negative difference is mostly noise.
 */
export const MIN_CPU_GAIN = 0.2;

export type SteadyResult = { ok: true; delta: RunTotals; figures: RunFigures } | { ok: false; reason: string };

/** The doubled window's run minus the window's run, or why the difference is no figure. */
export function steadyDifference(short: RunTotals, long: RunTotals): SteadyResult {
  const delta: RunTotals = {
    events: long.events - short.events,
    requests: long.requests - short.requests,
    cpu: long.cpu - short.cpu,
    simSeconds: long.simSeconds - short.simSeconds,
  };
  const bad = (Object.keys(delta) as (keyof RunTotals)[]).filter((f) => !Number.isFinite(short[f]) || !Number.isFinite(long[f]));
  if (bad.length > 0) return { ok: false, reason: `a run reported no number for ${bad.join(', ')}` };
  if (delta.simSeconds <= 0) return { ok: false, reason: `the doubled window simulated ${delta.simSeconds} s more (not a longer run)` };
  if (delta.events <= 0 || delta.requests <= 0) {
    return { ok: false, reason: `the doubled window added ${delta.events} events and ${delta.requests} requests (nothing to measure)` };
  }
  if (delta.cpu < MIN_CPU_GAIN * short.cpu) {
    return {
      ok: false,
      reason:
        `the doubled window took ${long.cpu.toFixed(2)} s CPU against ${short.cpu.toFixed(2)} s, a difference of ${delta.cpu.toFixed(2)} s ` +
        `under ${MIN_CPU_GAIN * 100} % of the shorter run: within this machine's noise, no figure (rerun, or with --repeat)`,
    };
  }
  return { ok: true, delta, figures: figures(delta) };
}

/** Warm-up and scored minutes of the steady run: both doubled. */
export function doubled([warmupMinutes, minutes]: readonly [number, number]): [number, number] {
  return [2 * warmupMinutes, 2 * minutes];
}

/** The run of least CPU time among runs of one scenario and tree (same seed: same events, only the time differs). */
export function leastCpu<T extends { cpu: number }>(runs: readonly T[]): T {
  if (runs.length === 0) throw new RangeError('leastCpu of no runs');
  return runs.reduce((a, b) => (b.cpu < a.cpu ? b : a));
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new RangeError('median of nothing');
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 === 1 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
}

/** A ratio against the target for events/s at 1,024 nodes over 9 (issue 13: at least 0.5). */
export function verdict(ratio: number, target = 0.5): string {
  return `${ratio.toFixed(2)} (>= ${target}: ${ratio >= target ? 'yes' : 'no'})`;
}
