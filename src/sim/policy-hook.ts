import type { Role } from './split.js';

/**
 * How the simulator consults a serving policy every monitoring step. The
 * sandboxed implementation (src/sandbox) and plain functions both fit. CPU
 * seconds are what the call cost; the simulator charges the sum of
 * shouldReschedule and schedule as delay before the plan takes effect.
 */
export interface PolicyHook {
  shouldReschedule(ctx: PolicyCtx): PolicyAnswer<boolean>;
  schedule(ctx: PolicyCtx): PolicyAnswer<{ roles: Role[] }>;
}

export type PolicyAnswer<T> =
  | { ok: true; value: T; cpuSeconds: number }
  | { ok: false; failure: { kind: string; message: string }; cpuSeconds: number };

/** The read-only view of the cluster handed to a policy (design section 5; ctx.version 1). */
export interface PolicyCtx {
  version: 1;
  now: number;
  seed: number;
  plan: { roles: Role[] };
  nodes: {
    id: number;
    kind: string;
    state: 'active' | 'switching' | 'down' | 'restarting';
    role: Role;
    targetRole: Role;
    queueLength: number;
    running: number;
    kv: { l1Used: number; l1Capacity: number; l2Used: number; l2Capacity: number };
  }[];
  window: {
    sliceSeconds: number;
    slices: {
      start: number;
      end: number;
      arrivals: number;
      completions: number;
      meanUncachedTokens: number;
      meanCachedTokens: number;
      meanOutputTokens: number;
      meanAcceptedPerIter: number;
      meanPrefillQueue: number;
      meanDecodeQueue: number;
      ttftP50: number;
      ttftP95: number;
      e2eP50: number;
      e2eP95: number;
      kvHitRate: number;
    }[];
  };
  model: {
    byKind: Record<
      string,
      {
        prefill: { c0: number; c1: number; c2: number; c3: number };
        decode: { d0: number; d1: number; d2: number };
        kFraction: number;
        tFwd: number;
        tAcc: number;
        maxDecodeBatch: number;
      }
    >;
  };
  transitions: { node: number; from: Role; to: Role; start: number; end?: number }[];
  membership: { node: number; event: 'down' | 'up'; at: number }[];
  lastRescheduleAt: number | null;
  limits: { minPrefill: number; minDecode: number };
}

/** A policy given as plain functions (tests, the static split). Costs nothing. */
export function plainPolicy(fns: {
  shouldReschedule: (ctx: PolicyCtx) => boolean;
  schedule: (ctx: PolicyCtx) => { roles: Role[] };
}): PolicyHook {
  return {
    shouldReschedule: (ctx) => ({ ok: true, value: fns.shouldReschedule(ctx), cpuSeconds: 0 }),
    schedule: (ctx) => ({ ok: true, value: fns.schedule(ctx), cpuSeconds: 0 }),
  };
}
