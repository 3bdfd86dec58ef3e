import { validatePlan } from '../policy/validate-plan.js';
import { buildPolicyCtx, PLAN_LIMITS } from './cluster-view.js';
import { applyPlanKnobs, ctxMechanics } from './mechanics.js';
import type { PlanKnobs, SimEvent } from './events.js';
import type { PolicyCtx, PolicyHook } from './policy-hook.js';
import type { SimState } from './sim-state.js';
import { reconcile } from './transitions/role-switch.js';

/**
 * The policy driver: consults the serving policy at each monitoring step,
 * charges what its calls cost (CPU seconds, which also delay the plan), and
 * applies the plan once it takes effect, if the cluster can still serve it.
 */

export function consultPolicy(s: SimState, policy: PolicyHook, now: number, out: SimEvent[]): void {
  const ctx = buildCtx(s, now);
  const stats = s.policyStats;
  stats.calls++;
  const should = policy.shouldReschedule(ctx);
  chargePolicy(s, should.cpuSeconds, now);
  if (!should.ok) return recordFailure(s, should.failure.kind, should.failure.message);
  if (!should.value) return;
  const plan = policy.schedule(ctx);
  chargePolicy(s, plan.cpuSeconds, now);
  stats.reschedules++;
  s.lastRescheduleAt = now;
  s.membershipLog.length = 0;
  if (!plan.ok) return recordFailure(s, plan.failure.kind, plan.failure.message);
  // The plan takes effect once the policy has finished computing it: serving goes on under the old plan meanwhile.
  const delay = should.cpuSeconds + plan.cpuSeconds;
  stats.delaySeconds += delay;
  const roles = plan.value.roles;
  const changedNodes = s.nodes.filter((n) => n.status !== 'down' && roles[n.id] !== undefined && roles[n.id] !== s.desiredRoles[n.id]).map((n) => n.id);
  stats.plans.push({ decidedAt: now, appliesAt: now + delay, changedNodes });
  const knobs = planKnobs(plan.value);
  out.push({ type: 'plan', at: now + delay, roles: [...roles], record: stats.plans.length - 1, ...(knobs ? { knobs } : {}) });
}

/** A plan takes effect, unless the cluster as it is now cannot serve it (the rules of validatePlan, against the nodes up now). */
export function onPlan(s: SimState, ev: Extract<SimEvent, { type: 'plan' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const check = validatePlan({ ...ev.knobs, roles: ev.roles }, { nodes: s.nodes.map((n) => ({ state: n.status })), limits: PLAN_LIMITS });
  if (!check.ok) {
    recordFailure(s, 'invalid-plan', check.message);
    // It never took effect: it changes no node, so no serving was stale for it.
    const record = s.policyStats.plans[ev.record]!;
    record.changedNodes = [];
    record.rejected = true;
    return out;
  }
  s.policyStats.plansApplied++;
  // Knobs first: the switches this plan starts are paced by its maxConcurrent.
  applyPlanKnobs(s.knobs, check.plan);
  if (check.plan.eviction) s.kv.setEviction(s.knobs.eviction, s.knobs.protectWaiting === 'both');
  s.desiredRoles = [...check.plan.roles];
  reconcile(s, now, out);
  return out;
}

/** The plan's v2 fields (copied: the policy's answer is not kept), or undefined when it sets none, so a v1 plan's event is as before. */
function planKnobs(plan: PlanKnobs & { roles: unknown }): PlanKnobs | undefined {
  const { roles: _roles, ...rest } = plan;
  return Object.keys(rest).length > 0 ? (structuredClone(rest) as PlanKnobs) : undefined;
}

function chargePolicy(s: SimState, cpuSeconds: number, now: number): void {
  s.policyStats.cpuSeconds += cpuSeconds;
  if (now >= s.opts.warmupSeconds) s.policyStats.scoredCpuSeconds += cpuSeconds;
}

function recordFailure(s: SimState, kind: string, message: string): void {
  const f = s.policyStats.failures.find((x) => x.kind === kind);
  if (f) f.count++;
  else s.policyStats.failures.push({ kind, count: 1, firstMessage: message });
}

/** The policy's ctx: a copyable snapshot of the cluster now. */
export function buildCtx(s: SimState, now: number): PolicyCtx {
  return buildPolicyCtx({
    now,
    seed: s.opts.seed,
    desiredRoles: s.desiredRoles,
    mechanics: ctxMechanics(s.opts.mechanics, s.knobs),
    nodes: s.nodes,
    kv: s.kv,
    slices: s.metrics.recentSlices(now, s.opts.windowSlices ?? 10),
    sliceKv: s.metrics.recentSliceKv(now, s.opts.windowSlices ?? 10),
    sliceSeconds: s.opts.sliceSeconds ?? 60,
    model: s.learning ? s.learning.policyModel() : (s.opts.policyModel ?? { byKind: {} }),
    transitions: s.metrics.transitions.slice(-20),
    membership: s.membershipLog,
    lastRescheduleAt: s.lastRescheduleAt,
  });
}
