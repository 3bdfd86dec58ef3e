import { InputError } from '../common/errors.js';

/**
 * How a policy's scheduling time is charged:
 * - `counted` (the default): ops x NS_PER_OP + NS_PER_CALL per call, from
 *   the sandbox's deterministic count of the policy's function entries and
 *   loop iterations (src/sandbox/instrument.ts). The same seed gives the same
 *   charge on any machine, under any load, and 10x the loop work pays 10x.
 * - `measured`: the call's CPU time in the sandbox (machine- and load-dependent).
 * - `zero`; `fixed:MS` per call.
 */
export type SchedCost = { kind: 'counted' } | { kind: 'measured' } | { kind: 'zero' } | { kind: 'fixed'; ms: number };

export const DEFAULT_SCHED_COST = 'counted';

/**
 * Charged ns per counted op. Calibrated once, 2026-12-01 09:50-10:00 UTC,
 * with `npm run bench:sched-cost` on this project's 2-core VM (Node 20.20,
 * isolated-vm 5.0; other jobs were running, load average 8-16). The
 * reference loop predicts one split's throughput with the stdlib per
 * iteration (the work most seeds do most of) on the ctx of a cc replay,
 * N = 0, 10, 30, 100 iterations, 200 calls per N in a fresh isolate (about
 * what one evaluation makes); the least-squares slope of the median isolate
 * CPU per call against the call's counted ops was 5.4-6.2 ns per op over four
 * runs, taken as 6. Hot, JIT-compiled tight loops run cheaper per op (about
 * 3 ns); the seeds' own calls, whose ops do more uncounted builtin work,
 * measure more (the bench prints them).
 */
export const NS_PER_OP = 6;
/**
 * Charged per call that reaches the policy, whatever it does: copying ctx in
 * and the answer out, the dispatcher, the plan check. The same fit's
 * intercept (the N = 0 call): 19-25 us over the same runs, taken as 25 us.
 * Under `measured` every call pays this too; keeping it keeps the two costs
 * on one scale and keeps asking the policy more often than needed a cost.
 */
export const NS_PER_CALL = 25_000;

export function parseSchedCost(spec: string): SchedCost {
  if (spec === 'counted') return { kind: 'counted' };
  if (spec === 'measured') return { kind: 'measured' };
  if (spec === 'zero') return { kind: 'zero' };
  const m = /^fixed:(\d+(?:\.\d+)?)$/.exec(spec);
  if (m) return { kind: 'fixed', ms: Number(m[1]) };
  throw new InputError(`"${spec}" is not counted, measured, zero or fixed:MS`, { field: '--sched-cost' });
}

/** What the sandbox reports of one call. */
export interface CallCost {
  cpuMs: number;
  ops: number;
}

/** Seconds charged for one call. */
export function chargedSeconds(cost: SchedCost, call: CallCost): number {
  switch (cost.kind) {
    case 'counted':
      return (call.ops * NS_PER_OP + NS_PER_CALL) / 1e9;
    case 'measured':
      return call.cpuMs / 1000;
    case 'zero':
      return 0;
    case 'fixed':
      return cost.ms / 1000;
  }
}

export function formatSchedCost(cost: SchedCost): string {
  return cost.kind === 'fixed' ? `fixed:${cost.ms}` : cost.kind;
}
