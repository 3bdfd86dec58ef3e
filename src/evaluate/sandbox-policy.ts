import { PolicySandbox, type SandboxOptions } from '../sandbox/index.js';
import type { PolicyHook } from '../sim/index.js';
import { chargedSeconds, type SchedCost } from './sched-cost.js';

/**
 * A sandboxed policy as the simulator's hook: every call runs in the policy's
 * isolate, its failure becomes a typed failure the simulator counts (the last
 * good plan stays), and its CPU time is charged as the sched-cost says.
 */
export function sandboxHook(sandbox: PolicySandbox, cost: SchedCost): PolicyHook {
  return {
    shouldReschedule(ctx) {
      const r = sandbox.shouldReschedule(ctx);
      const cpuSeconds = chargedSeconds(cost, r.cpuMs);
      return r.ok ? { ok: true, value: r.value, cpuSeconds } : { ok: false, failure: { kind: r.failure.kind, message: r.failure.message }, cpuSeconds };
    },
    schedule(ctx) {
      const r = sandbox.schedule(ctx);
      const cpuSeconds = chargedSeconds(cost, r.cpuMs);
      return r.ok ? { ok: true, value: { roles: r.plan.roles }, cpuSeconds } : { ok: false, failure: { kind: r.failure.kind, message: r.failure.message }, cpuSeconds };
    },
  };
}

export type { SandboxOptions };
