import type { Ctx, CtxNode, Role } from './schema.js';
import { STDLIB_NAMES, STDLIB_SOURCE } from './stdlib-source.js';

/** The mean request of a window or slice, as the throughput predictor takes it. */
export interface Workload {
  /** t_uc: uncached prompt tokens. */
  uncached: number;
  /** t_c: cached prefix tokens. */
  cached: number;
  /** t_out: output tokens. */
  output: number;
  /** t_acc: tokens accepted per decode iteration; null: use each node kind's model tAcc. */
  accepted: number | null;
  /** t_rst: tokens restored from host memory (0 when unobserved). */
  restored: number;
  /** q_D: requests in decode (running and waiting) across the cluster. */
  decodeQueue: number;
  /**
   * q_P: requests waiting for prefill across the cluster. The predictor sizes
   * decode batches from q_D + q_P (the requests a split shares out between
   * the phases); absent counts as 0. meanWorkload and sliceWorkload set it.
   */
  prefillQueue?: number;
}

export interface PhaseCapacity {
  prefill: number;
  decode: number;
}

type NodeForSplit = Pick<CtxNode, 'state' | 'role' | 'targetRole' | 'queueLength' | 'running'>;
type NodeForKindSplit = NodeForSplit & Pick<CtxNode, 'kind'>;
type Sample = number | null | undefined;

/** The stdlib's functions, typed. Their behaviour is documented in stdlib-source.ts and CONTRACT.md. */
export interface Stdlib {
  mean(xs: readonly Sample[]): number;
  stdError(xs: readonly Sample[]): number;
  percentile(xs: readonly Sample[], p: number): number;
  meanWorkload(ctx: Ctx): Workload | null;
  sliceWorkload(ctx: Ctx, index: number): Workload | null;
  phaseCapacity(ctx: Ctx, roles: readonly Role[], workload?: Workload | null): PhaseCapacity;
  predictThroughput(ctx: Ctx, roles: readonly Role[], workload?: Workload | null): number;
  predictWithHeadroom(ctx: Ctx, roles: readonly Role[], workload: Workload | null | undefined, spareNodes: number): number;
  splitToRoles(nP: number, nodes: readonly NodeForSplit[]): Role[];
  splitByKind(nP: number, nodes: readonly NodeForKindSplit[], ctx: Ctx, workload?: Workload | null): Role[];
  countRoles(roles: readonly Role[], nodes?: readonly Pick<CtxNode, 'state'>[]): { P: number; D: number };
}

// Evaluated once in this realm, from the same text the sandbox evaluates.
// new Function gives it the plain global scope (not this module's), which is
// all it may use.
function instantiate(): Stdlib {
  const made = new Function(`return ${STDLIB_SOURCE};`)() as Record<string, unknown>;
  for (const name of STDLIB_NAMES) {
    if (typeof made[name] !== 'function') throw new Error(`stdlib source does not define ${name}`);
  }
  return Object.freeze(made) as unknown as Stdlib;
}

/** The host's copy of the policy stdlib: identical code to what policies call in the sandbox. */
export const stdlib: Stdlib = instantiate();
