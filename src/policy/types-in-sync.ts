/**
 * Compile-time guard: the hand-written types that policy authors read
 * (policy.d.ts) must describe exactly what the zod schemas accept, and the
 * stdlib declarations must match the host's typed stdlib. If either side
 * changes alone, `tsc` fails here. Nothing runs.
 */
import type * as Authored from './policy.js';
import type { Ctx, Plan } from './schema.js';
import type { PhaseCapacity, Stdlib, Workload } from './stdlib.js';

// Data types must be identical once written out field by field (zod infers
// intersections and aliases that are equal but not spelled alike): an
// optional field on one side only fails too, unlike mutual assignability.
type Deep<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? Deep<E>[]
    : T extends object
      ? { [K in keyof T]: Deep<T[K]> }
      : T;
type Identical<A, B> = (<T>() => T extends Deep<A> ? 1 : 2) extends <T>() => T extends Deep<B> ? 1 : 2 ? true : false;
// Functions: each must accept what the other accepts and return the same.
type Interchangeable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;

export type CtxInSync = Assert<Identical<Ctx, Authored.Ctx>>;
export type PlanInSync = Assert<Identical<Plan, Authored.Plan>>;
export type WorkloadInSync = Assert<Identical<Workload, Authored.Workload>>;
export type PhaseCapacityInSync = Assert<Identical<PhaseCapacity, Authored.PhaseCapacity>>;
export type StdlibInSync = Assert<
  Interchangeable<
    Stdlib,
    {
      mean: typeof Authored.mean;
      stdError: typeof Authored.stdError;
      percentile: typeof Authored.percentile;
      meanWorkload: typeof Authored.meanWorkload;
      sliceWorkload: typeof Authored.sliceWorkload;
      phaseCapacity: typeof Authored.phaseCapacity;
      predictThroughput: typeof Authored.predictThroughput;
      predictWithHeadroom: typeof Authored.predictWithHeadroom;
      splitToRoles: typeof Authored.splitToRoles;
      splitByKind: typeof Authored.splitByKind;
      countRoles: typeof Authored.countRoles;
    }
  >
>;
