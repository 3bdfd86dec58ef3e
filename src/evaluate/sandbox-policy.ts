import { PolicySandbox, type SandboxOptions } from '../sandbox/index.js';
import type { PolicyHook } from '../sim/index.js';
import { chargedSeconds, type SchedCost } from './sched-cost.js';

/**
 * A sandboxed policy as the simulator's hook: every call runs in the policy's
 * isolate, its failure becomes a typed failure the simulator counts (the last
 * good plan stays), and its work is charged as the sched-cost says. A call on
 * an isolate already gone never reaches the policy and is charged nothing.
 */
export function sandboxHook(sandbox: PolicySandbox, cost: SchedCost): PolicyHook {
  const charge = (r: { cpuMs: number; ops: number }, wasDead: boolean) => (wasDead ? 0 : chargedSeconds(cost, r));
  return {
    shouldReschedule(ctx) {
      const wasDead = sandbox.fatalFailure !== null;
      const r = sandbox.shouldReschedule(ctx);
      const cpuSeconds = charge(r, wasDead);
      return r.ok ? { ok: true, value: r.value, cpuSeconds } : { ok: false, failure: { kind: r.failure.kind, message: r.failure.message }, cpuSeconds };
    },
    schedule(ctx) {
      const wasDead = sandbox.fatalFailure !== null;
      const r = sandbox.schedule(ctx);
      const cpuSeconds = charge(r, wasDead);
      return r.ok ? { ok: true, value: r.plan, cpuSeconds } : { ok: false, failure: { kind: r.failure.kind, message: r.failure.message }, cpuSeconds };
    },
  };
}

export type { SandboxOptions };
