import { UsageError } from '../common/errors.js';
import { sandboxHook, type SchedCost } from '../evaluate/index.js';
import type { Ctx } from '../policy/index.js';
import { PolicyFailure, PolicySandbox, type SandboxOptions } from '../sandbox/index.js';
import type { PolicyAnswer, PolicyCtx, PolicyHook, Role } from '../sim/index.js';
import type { PolicyRef } from './window.js';

/** A policy to serve with: its source and where it comes from. */
export interface PolicySpec {
  name: string;
  code: string;
  /** The candidate in the lineage database; null or absent for a policy not from a run (a seed, a file). */
  candidateId?: number | null;
  /** Fitness on the snapshot it won on, cycle and reason: carried into the deploy event for the lineage. */
  fitness?: number;
  cycle?: number;
  reason?: string;
}

/**
 * What happened in the slot, in simulated seconds. The serve command writes
 * `deploy` into the lineage (insertDeployment) and `rollback` with
 * markRolledBack on the deployment of `candidateId`.
 */
export type SlotEvent =
  | {
      type: 'deploy';
      at: number;
      name: string;
      candidateId: number | null;
      /** Its source: a policy staged by hand has no candidate yet, and the lineage records it from this. */
      code: string;
      /** The policy it replaced. */
      replaced: PolicyRef;
      fitness?: number;
      cycle?: number;
      reason?: string;
    }
  | {
      type: 'reject';
      at: number;
      name: string;
      candidateId: number | null;
      /** `superseded` when a newer staged policy replaced it before it was deployed. */
      kind: 'validation' | 'superseded';
      failureKind?: string;
      reason: string;
    }
  | {
      type: 'rollback';
      at: number;
      /** The policy that failed and was removed. */
      name: string;
      candidateId: number | null;
      /** The policy serving again. */
      restored: PolicyRef;
      reason: string;
    };

export interface PolicySlotOptions {
  schedCost: SchedCost;
  /** Limits of every policy's sandbox. `seed` and `name` are set by the slot. */
  sandbox?: Omit<SandboxOptions, 'seed' | 'name'>;
  /** Seeds Math.random in every policy's isolate (the run's seed). */
  seed: number;
  /**
   * Failed reschedule attempts in a row of a newly deployed policy before the
   * previous one is restored (default 3). An attempt is one monitoring call
   * and, when it answers true, the schedule call it asks for: it fails when
   * either call fails.
   */
  rollbackAfter?: number;
  onEvent?: (event: SlotEvent) => void;
}

export type OfferResult = { ok: true } | { ok: false; failureKind: string; reason: string };

interface Loaded {
  ref: PolicyRef;
  spec: PolicySpec;
  sandbox: PolicySandbox;
  hook: PolicyHook;
}

/**
 * The deployed policy, the one before it, and at most one validated policy
 * waiting for the next monitoring step. The slot is the simulator's
 * PolicyHook: each call goes to the deployed policy, so a swap or a rollback
 * changes nothing in the simulator but who answers.
 *
 * - offer: the candidate is compiled and called once (shouldReschedule and
 *   schedule, plan checked against the contract) on the current ctx in a
 *   throwaway sandbox; on failure it is rejected and never deployed. On
 *   success a fresh instance (clean globals) waits as `pending`.
 * - At the next shouldReschedule call (the next monitoring step) the pending
 *   policy becomes the deployed one; the one it replaces is kept, alive, as
 *   the previous.
 * - A deployed policy that fails `rollbackAfter` reschedule attempts in a
 *   row while a previous one is kept is removed and the previous restored
 *   (its isolate and globals as they were). An attempt succeeds only when
 *   the whole of it does: a shouldReschedule that answers true does not
 *   clear the count until the schedule it asks for succeeds too, so a policy
 *   whose schedule always throws is rolled back. The failed call's answer is
 *   still a failure: the simulator keeps its last good plan, as for any
 *   failure.
 */
export class PolicySlot implements PolicyHook {
  private deployedP: Loaded;
  private previous: Loaded | null = null;
  private pendingP: Loaded | null = null;
  /** Failed reschedule attempts in a row of the deployed policy. */
  private consecutive = 0;
  private failureCount = 0;
  private rollbackCount = 0;
  private readonly failuresByKind = new Map<string, number>();
  private readonly log: SlotEvent[] = [];
  private readonly rollbackAfter: number;

  /** Throws the PolicyFailure when the starting policy does not load. */
  constructor(
    initial: PolicySpec,
    private readonly options: PolicySlotOptions,
  ) {
    this.rollbackAfter = options.rollbackAfter ?? 3;
    if (!Number.isSafeInteger(this.rollbackAfter) || this.rollbackAfter < 1) throw new UsageError(`rollbackAfter must be a whole number >= 1, got ${options.rollbackAfter}`);
    this.deployedP = this.load(initial);
  }

  /** The policy answering now. */
  get deployed(): PolicyRef {
    return this.deployedP.ref;
  }

  /** The validated policy that will be deployed at the next monitoring step, if any. */
  get pending(): PolicyRef | null {
    return this.pendingP?.ref ?? null;
  }

  /** The policy a rollback would restore, if any. */
  get fallback(): PolicyRef | null {
    return this.previous?.ref ?? null;
  }

  /** Failed policy calls, all policies together. */
  get failures(): number {
    return this.failureCount;
  }

  get failureKinds(): { kind: string; count: number }[] {
    return [...this.failuresByKind].map(([kind, count]) => ({ kind, count }));
  }

  get rollbacks(): number {
    return this.rollbackCount;
  }

  /** Every deploy, reject and rollback so far, in order. */
  get events(): readonly SlotEvent[] {
    return this.log;
  }

  /**
   * Validate a candidate on `ctx` (the cluster as it is now) and, if it
   * passes, queue it for the next monitoring step. A candidate already
   * waiting is replaced (and recorded as superseded).
   */
  offer(spec: PolicySpec, ctx: Ctx): OfferResult {
    const ref = refOf(spec);
    const verdict = this.validate(spec, ctx);
    if (!verdict.ok) {
      this.emit({ type: 'reject', at: ctx.now, ...ref, kind: 'validation', failureKind: verdict.failureKind, reason: verdict.reason });
      return verdict;
    }
    let fresh: Loaded;
    try {
      fresh = this.load(spec);
    } catch (error) {
      if (!(error instanceof PolicyFailure)) throw error;
      const failed = { ok: false as const, failureKind: error.kind, reason: `${error.kind}: ${error.message}` };
      this.emit({ type: 'reject', at: ctx.now, ...ref, kind: 'validation', failureKind: error.kind, reason: failed.reason });
      return failed;
    }
    if (this.pendingP) {
      const old = this.pendingP;
      this.emit({ type: 'reject', at: ctx.now, ...old.ref, kind: 'superseded', reason: `superseded by ${spec.name} before it was deployed` });
      old.sandbox.dispose();
    }
    this.pendingP = fresh;
    return { ok: true };
  }

  /** Record a staged candidate that was replaced by a newer one before being offered. */
  recordSuperseded(spec: PolicySpec, at: number, by: string): void {
    this.emit({ type: 'reject', at, ...refOf(spec), kind: 'superseded', reason: `superseded by ${by} before it was validated` });
  }

  shouldReschedule(ctx: PolicyCtx): PolicyAnswer<boolean> {
    if (this.pendingP) this.swap(ctx.now);
    const answer = this.deployedP.hook.shouldReschedule(ctx);
    if (answer.ok && answer.value) {
      // The attempt is not over: it succeeds or fails with the plan it asks for.
      this.countCall(answer);
      return answer;
    }
    return this.endAttempt(answer, ctx.now);
  }

  schedule(ctx: PolicyCtx): PolicyAnswer<{ roles: Role[] }> {
    return this.endAttempt(this.deployedP.hook.schedule(ctx), ctx.now);
  }

  /** Free every isolate. The slot cannot be called afterwards. */
  dispose(): void {
    for (const l of [this.pendingP, this.previous, this.deployedP]) l?.sandbox.dispose();
    this.pendingP = null;
    this.previous = null;
  }

  private validate(spec: PolicySpec, ctx: Ctx): OfferResult {
    let sandbox: PolicySandbox;
    try {
      sandbox = PolicySandbox.create(spec.code, this.sandboxOptions(spec.name));
    } catch (error) {
      if (!(error instanceof PolicyFailure)) throw error;
      return { ok: false, failureKind: error.kind, reason: `${error.kind} while loading: ${error.message}` };
    }
    try {
      const should = sandbox.shouldReschedule(ctx);
      if (!should.ok) return { ok: false, failureKind: should.failure.kind, reason: `shouldReschedule: ${should.failure.kind}: ${should.failure.message}` };
      // schedule is called whatever shouldReschedule answered: the candidate must be able to plan for this cluster.
      const plan = sandbox.schedule(ctx);
      if (!plan.ok) return { ok: false, failureKind: plan.failure.kind, reason: `schedule: ${plan.failure.kind}: ${plan.failure.message}` };
      return { ok: true };
    } finally {
      sandbox.dispose();
    }
  }

  private load(spec: PolicySpec): Loaded {
    const sandbox = PolicySandbox.create(spec.code, this.sandboxOptions(spec.name));
    return { ref: refOf(spec), spec, sandbox, hook: sandboxHook(sandbox, this.options.schedCost) };
  }

  private sandboxOptions(name: string): SandboxOptions {
    return { ...this.options.sandbox, seed: this.options.seed, name };
  }

  private swap(at: number): void {
    const next = this.pendingP!;
    this.pendingP = null;
    this.previous?.sandbox.dispose();
    const replaced = this.deployedP;
    this.previous = replaced;
    this.deployedP = next;
    this.consecutive = 0;
    const s = next.spec;
    this.emit({
      type: 'deploy',
      at,
      ...next.ref,
      code: s.code,
      replaced: replaced.ref,
      ...(s.fitness !== undefined ? { fitness: s.fitness } : {}),
      ...(s.cycle !== undefined ? { cycle: s.cycle } : {}),
      ...(s.reason !== undefined ? { reason: s.reason } : {}),
    });
  }

  private countCall<T>(answer: PolicyAnswer<T>): void {
    if (answer.ok) return;
    this.failureCount++;
    this.failuresByKind.set(answer.failure.kind, (this.failuresByKind.get(answer.failure.kind) ?? 0) + 1);
  }

  /** The last call of a reschedule attempt: the attempt succeeded or failed with it. */
  private endAttempt<T>(answer: PolicyAnswer<T>, at: number): PolicyAnswer<T> {
    this.countCall(answer);
    if (answer.ok) {
      this.consecutive = 0;
      return answer;
    }
    this.consecutive++;
    if (this.consecutive >= this.rollbackAfter && this.previous) this.rollback(at, answer.failure);
    return answer;
  }

  private rollback(at: number, last: { kind: string; message: string }): void {
    const failed = this.deployedP;
    const restored = this.previous!;
    this.previous = null;
    this.deployedP = restored;
    this.consecutive = 0;
    this.rollbackCount++;
    failed.sandbox.dispose();
    this.emit({
      type: 'rollback',
      at,
      ...failed.ref,
      restored: restored.ref,
      reason: `${this.rollbackAfter} failed reschedule attempts in a row; the last: ${last.kind}: ${last.message}`,
    });
  }

  private emit(event: SlotEvent): void {
    this.log.push(event);
    this.options.onEvent?.(event);
  }
}

function refOf(spec: PolicySpec): PolicyRef {
  return { name: spec.name, candidateId: spec.candidateId ?? null };
}
