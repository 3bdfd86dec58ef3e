import type { SimResult } from '../sim/index.js';

/**
 * T_total and its breakdown (design section 6). Measured over the scored
 * interval [warm-up end, drain end], the time the snapshot's work took to
 * finish ("makespan"):
 *
 * - schedSeconds: the policy's charged CPU time (per the sched-cost) of every
 *   call in the interval. The policy runs on the serving loop's critical path,
 *   so this time adds to the time to finish; it is also the delay before each
 *   plan takes effect.
 * - staleSeconds: node-seconds spent serving under the old plan while a new
 *   one was being computed (each node the pending plan changes, from decision
 *   to effect), divided by the node count.
 * - reconfigSeconds: node-seconds of nodes switching or restarting, divided by
 *   the node count: capacity lost to reconfiguration.
 * - serveSeconds: the rest of the makespan, serving under the intended plan.
 *
 * makespan = stale + reconfig + serve, so
 * T_total = sched + stale + reconfig + serve = makespan + sched.
 */
export interface Breakdown {
  reschedules: number;
  schedSeconds: number;
  staleSeconds: number;
  reconfigSeconds: number;
  serveSeconds: number;
  makespanSeconds: number;
}

export function computeBreakdown(result: Pick<SimResult, 'simSeconds' | 'transitions' | 'policy'>, warmupSeconds: number, nodeCount: number, schedSeconds: number): { tTotal: number; breakdown: Breakdown } {
  const from = warmupSeconds;
  const to = result.simSeconds;
  const makespan = Math.max(0, to - from);
  const overlap = (a: number, b: number) => Math.max(0, Math.min(b, to) - Math.max(a, from));
  let reconfigNodeSeconds = 0;
  for (const t of result.transitions) reconfigNodeSeconds += overlap(t.start, t.end ?? to);
  let staleNodeSeconds = 0;
  let reschedules = 0;
  for (const p of result.policy.plans) {
    if (p.decidedAt >= from && p.decidedAt <= to) reschedules++;
    staleNodeSeconds += overlap(p.decidedAt, p.appliesAt) * p.changedNodes.length;
  }
  const staleSeconds = staleNodeSeconds / nodeCount;
  const reconfigSeconds = reconfigNodeSeconds / nodeCount;
  const serveSeconds = makespan - staleSeconds - reconfigSeconds;
  return {
    tTotal: makespan + schedSeconds,
    breakdown: { reschedules, schedSeconds, staleSeconds, reconfigSeconds, serveSeconds, makespanSeconds: makespan },
  };
}
