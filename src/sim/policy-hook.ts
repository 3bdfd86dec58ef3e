import type { Ctx, Plan } from '../policy/index.js';
import type { Role } from './split.js';

/**
 * How the simulator consults a serving policy every monitoring step. The
 * sandboxed implementation (src/sandbox) and plain functions both fit. CPU
 * seconds are what the call cost; the simulator charges the sum of
 * shouldReschedule and schedule as delay before the plan takes effect.
 */
export interface PolicyHook {
  shouldReschedule(ctx: PolicyCtx): PolicyAnswer<boolean>;
  /** The plan: roles, and (contract v2) any knobs it sets. */
  schedule(ctx: PolicyCtx): PolicyAnswer<Plan>;
}

export type PolicyAnswer<T> =
  | { ok: true; value: T; cpuSeconds: number }
  | { ok: false; failure: { kind: string; message: string }; cpuSeconds: number };

/** The read-only view of the cluster handed to a policy: the contract's ctx (src/policy, version 2). */
export type PolicyCtx = Ctx;

/** A policy given as plain functions (tests, the static split). Costs nothing. */
export function plainPolicy(fns: {
  shouldReschedule: (ctx: PolicyCtx) => boolean;
  schedule: (ctx: PolicyCtx) => { roles: Role[] } & Omit<Plan, 'roles'>;
}): PolicyHook {
  return {
    shouldReschedule: (ctx) => ({ ok: true, value: fns.shouldReschedule(ctx), cpuSeconds: 0 }),
    schedule: (ctx) => ({ ok: true, value: fns.schedule(ctx), cpuSeconds: 0 }),
  };
}
