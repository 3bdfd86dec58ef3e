import ivm from 'isolated-vm';
import { Rng } from '../common/rng.js';
import { validatePlan, type Ctx, type Plan } from '../policy/index.js';
import { PolicyFailure, SandboxDisposedError, type FailureKind, type FailurePhase } from './failure.js';
import { processCpuMarkFor, processCpuMsSince } from './process-cpu.js';
import { resolveSandboxOptions, type SandboxLimits, type SandboxOptions } from './options.js';
import { InstrumentError } from './instrument.js';
import { OpCounter } from './op-counter.js';
import { errorText, failureFromIsolate, isCopyable, truncate } from './answers.js';
import { DispatchOp, POLICY_FILENAME, PRELUDE_FILENAME, PRELUDE_SOURCE, STDLIB_FILENAME } from './prelude.js';

/**
 * Answers of a call. cpuMs is the call's time in the isolate as isolated-vm
 * measures it (copying ctx in and the answer out included); on a machine
 * short of cores it can include time spent waiting for one (process-cpu.ts).
 * ops is the call's count of function entries and loop iterations
 * (instrument.ts): deterministic, and counted whether the call returned,
 * threw or was stopped; 0 when counting is off.
 */
export type ShouldRescheduleResult =
  | { ok: true; value: boolean; cpuMs: number; ops: number }
  | { ok: false; failure: PolicyFailure; cpuMs: number; ops: number };

export type ScheduleResult =
  | { ok: true; plan: Plan; cpuMs: number; ops: number }
  | { ok: false; failure: PolicyFailure; cpuMs: number; ops: number };

/** What the dispatcher may answer: a boolean, plan JSON, or [kind, message]. */
type Raw = unknown;

/**
 * One policy, compiled once into its own isolate and context, called many
 * times, disposed at the end. Calls are synchronous (applySync): ctx is
 * copied in, the answer copied out and validated here.
 *
 * A failed call returns a PolicyFailure and never throws, so a data plane
 * keeps serving on its last good plan. `memory` and wall-clock `timeout`
 * failures dispose the isolate (it is gone, or it ran away); every later call
 * then fails at once with the same kind and `fatal` set, and the owner may
 * create a fresh instance. Errors that are not the policy's doing (a ctx that
 * cannot be copied, a call after dispose()) are thrown.
 */
export class PolicySandbox {
  private readonly isolate: ivm.Isolate;
  private readonly dispatcher: ivm.Reference<(op: number, ctx: unknown) => Raw>;
  private readonly context: ivm.Context;
  private cpuMsTotal = 0;
  private callCount = 0;
  private deadBy: PolicyFailure | null = null;
  private disposedByOwner = false;

  private constructor(
    readonly limits: SandboxLimits,
    isolate: ivm.Isolate,
    context: ivm.Context,
    dispatcher: ivm.Reference<(op: number, ctx: unknown) => Raw>,
    /** CPU the policy's top level and binding took while loading. */
    readonly loadCpuMs: number,
    private readonly counter: OpCounter,
  ) {
    this.isolate = isolate;
    this.context = context;
    this.dispatcher = dispatcher;
  }

  /**
   * Compile and load a policy. Throws a PolicyFailure (phase `load`) of kind
   * compile, missing-function, timeout or memory when the policy cannot be
   * loaded; the isolate is disposed then.
   */
  static create(source: string, options: SandboxOptions = {}): PolicySandbox {
    const limits = resolveSandboxOptions(options);
    const isolate = new ivm.Isolate({ memoryLimit: limits.memoryLimitMb });
    const counter = new OpCounter(source, limits.countOps);
    let context: ivm.Context | undefined;
    let dispatcher: ivm.Reference<(op: number, ctx: unknown) => Raw> | undefined;
    try {
      context = hold(isolate.createContextSync());
      const dispatch = (dispatcher = hold(installPrelude(isolate, context, limits, counter)));
      const proc0 = processCpuMarkFor(limits.cpuCheckMs);
      const cpu0 = isolate.cpuTime;
      counter.arm(limits.opLimit);
      loadPolicy(isolate, context, source, limits, counter);
      const bound = runGuarded(isolate, limits, 'load', () =>
        dispatch.applySync(undefined, [DispatchOp.Bind, null], {
          arguments: { copy: true },
          result: { copy: true },
          timeout: limits.wallLimitMs,
        }),
      );
      if (bound !== true) throw failureFromIsolate(bound, 'load');
      const overrun = counter.overrun('load', limits.opLimit);
      if (overrun) throw overrun;
      const loadCpuMs = Number(isolate.cpuTime - cpu0) / 1e6;
      if (loadCpuMs > limits.cpuCheckMs && proc0 && processCpuMsSince(proc0) > limits.cpuCheckMs) {
        throw new PolicyFailure('timeout', 'load', `loading took ${loadCpuMs.toFixed(1)} ms of CPU; the limit is ${limits.cpuLimitMs} ms`);
      }
      return new PolicySandbox(limits, isolate, context, dispatch, loadCpuMs, counter);
    } catch (error) {
      // As in dispose(): handles left to the garbage collector can abort the process.
      releaseQuietly(dispatcher);
      releaseQuietly(context);
      if (!isolate.isDisposed) isolate.dispose();
      // Whatever the budget's RangeError turned into (a top level that threw, a failed bind), it was the budget.
      throw (error instanceof PolicyFailure && error.kind !== 'memory' && counter.overrun('load', limits.opLimit)) || error;
    }
  }

  get name(): string {
    return this.limits.name;
  }

  /** CPU time of all calls so far (failed ones included), in ms. */
  get cumulativeCpuMs(): number {
    return this.cpuMsTotal;
  }

  get calls(): number {
    return this.callCount;
  }

  /** Ops counted so far, the policy's top level included. */
  get cumulativeOps(): number {
    return this.counter.total;
  }

  /** The failure that disposed the isolate, if one did. */
  get fatalFailure(): PolicyFailure | null {
    return this.deadBy;
  }

  get isDisposed(): boolean {
    return this.disposedByOwner || this.isolate.isDisposed;
  }

  shouldReschedule(ctx: Ctx): ShouldRescheduleResult {
    const answer = this.call(DispatchOp.ShouldReschedule, 'shouldReschedule', ctx);
    if (!answer.ok) return answer;
    const { raw, cpuMs, ops } = answer;
    if (typeof raw === 'boolean') return { ok: true, value: raw, cpuMs, ops };
    return { ok: false, failure: failureFromIsolate(raw, 'shouldReschedule'), cpuMs, ops };
  }

  schedule(ctx: Ctx): ScheduleResult {
    const answer = this.call(DispatchOp.Schedule, 'schedule', ctx);
    if (!answer.ok) return answer;
    const { raw, cpuMs, ops } = answer;
    if (typeof raw !== 'string') return { ok: false, failure: failureFromIsolate(raw, 'schedule'), cpuMs, ops };
    const fail = (kind: FailureKind, message: string): ScheduleResult => ({
      ok: false,
      failure: new PolicyFailure(kind, 'schedule', message),
      cpuMs,
      ops,
    });
    // The isolate already stopped at the limit in characters; bytes are what the limit means.
    if (raw.length > this.limits.maxPlanBytes || Buffer.byteLength(raw) > this.limits.maxPlanBytes) {
      return fail('too-large', `the plan is larger than ${this.limits.maxPlanBytes} bytes of JSON`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return fail('invalid-plan', 'the plan is not JSON data');
    }
    const checked = validatePlan(parsed, ctx);
    if (!checked.ok) return fail('invalid-plan', checked.message);
    return { ok: true, plan: checked.plan, cpuMs, ops };
  }

  /** Free the isolate. Idempotent; calls afterwards throw SandboxDisposedError. */
  dispose(): void {
    this.disposedByOwner = true;
    // Release the host-side handles now rather than leave them to the garbage
    // collector: finalised late, inside a worker thread being torn down, they
    // abort the process (isolated-vm asserts on a missing environment).
    this.releaseHandles();
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }

  private releaseHandles(): void {
    releaseQuietly(this.dispatcher);
    releaseQuietly(this.context);
  }

  /** callIsolate with the call's ops: the counter lives in shared memory, so it is read whatever happened in the isolate. */
  private call(op: DispatchOp, phase: FailurePhase, ctx: Ctx) {
    const ops0 = this.counter.total;
    this.counter.arm(this.limits.opLimit);
    const answer = this.callIsolate(op, phase, ctx);
    const ops = this.counter.total - ops0;
    const overrun = this.deadBy ? null : this.counter.overrun(phase, this.limits.opLimit);
    return overrun ? { ok: false as const, failure: overrun, cpuMs: answer.cpuMs, ops } : { ...answer, ops };
  }

  private callIsolate(
    op: DispatchOp,
    phase: FailurePhase,
    ctx: Ctx,
  ): { ok: true; raw: Raw; cpuMs: number } | { ok: false; failure: PolicyFailure; cpuMs: number } {
    if (this.disposedByOwner) throw new SandboxDisposedError(`sandbox of ${this.name} was disposed by its owner`);
    if (this.deadBy) {
      const dead = this.deadBy;
      return {
        ok: false,
        failure: new PolicyFailure(
          dead.kind,
          phase,
          `the isolate of ${this.name} was disposed after a ${dead.kind} failure in ${dead.phase}: ${dead.message}`,
          true,
        ),
        cpuMs: 0,
      };
    }
    const proc0 = processCpuMarkFor(this.limits.cpuCheckMs);
    const cpu0 = this.isolate.cpuTime;
    const t0 = performance.now();
    let raw: Raw;
    try {
      raw = this.dispatcher.applySync(undefined, [op, ctx], {
        arguments: { copy: true },
        result: { copy: true },
        timeout: this.limits.wallLimitMs,
      });
    } catch (error) {
      const wallMs = performance.now() - t0;
      const kind = crashKind(this.isolate, this.limits, wallMs);
      if (kind === null) {
        // Not a crash. Either ctx could not be copied in (our bug: rethrow),
        // or the policy made isolated-vm itself fail, past the dispatcher's
        // catch (dynamic import() does): the policy's failure, and the
        // isolate is still sound. Checked here, off the fast path.
        if (!isCopyable(ctx)) throw error;
        const cpuMs = Number(this.isolate.cpuTime - cpu0) / 1e6;
        this.charge(cpuMs);
        const message = `${phase} failed inside the sandbox: ${errorText(error)}`;
        return { ok: false, failure: new PolicyFailure('throw', phase, message), cpuMs };
      }
      // CPU can no longer be read from a disposed isolate; wall time bounds it.
      const cpuMs = this.isolate.isDisposed ? wallMs : Number(this.isolate.cpuTime - cpu0) / 1e6;
      this.charge(cpuMs);
      const failure = crashFailure(kind, phase, this.limits, wallMs);
      this.deadBy = failure;
      if (!this.isolate.isDisposed) this.isolate.dispose();
      return { ok: false, failure, cpuMs };
    }
    const cpuMs = Number(this.isolate.cpuTime - cpu0) / 1e6;
    this.charge(cpuMs);
    // isolated-vm's figure can include waiting for a core; the process's CPU must agree (process-cpu.ts).
    if (cpuMs > this.limits.cpuCheckMs && proc0 && processCpuMsSince(proc0) > this.limits.cpuCheckMs) {
      const message = `${phase} used ${cpuMs.toFixed(1)} ms of CPU; the limit is ${this.limits.cpuLimitMs} ms per call`;
      return { ok: false, failure: new PolicyFailure('timeout', phase, message), cpuMs };
    }
    return { ok: true, raw, cpuMs };
  }

  private charge(cpuMs: number): void {
    this.cpuMsTotal += cpuMs;
    this.callCount++;
  }
}

function installPrelude(
  isolate: ivm.Isolate,
  context: ivm.Context,
  limits: SandboxLimits,
  counter: OpCounter,
): ivm.Reference<(op: number, ctx: unknown) => Raw> {
  // Math.random's own stream, derived from the run's seed so that it does not
  // share draws with the simulator's streams.
  const rng = Rng.derive(limits.seed, 'sandbox:Math.random');
  const words = [rng.nextUint32(), rng.nextUint32(), rng.nextUint32(), rng.nextUint32()];
  const prelude = isolate.compileScriptSync(PRELUDE_SOURCE, { filename: PRELUDE_FILENAME });
  let setup: ivm.Reference<unknown> | undefined;
  try {
    setup = prelude.runSync(context, { reference: true, timeout: limits.wallLimitMs }) as ivm.Reference<unknown>;
  } finally {
    releaseQuietly(prelude);
  }
  let dispatcher: ivm.Reference<(op: number, ctx: unknown) => Raw>;
  try {
    dispatcher = setup.applySync(undefined, [...words, limits.maxPlanBytes], {
      arguments: { copy: true },
      result: { reference: true },
      timeout: limits.wallLimitMs,
    }) as ivm.Reference<(op: number, ctx: unknown) => Raw>;
  } finally {
    releaseQuietly(setup);
  }
  try {
    counter.install(isolate, context, limits.wallLimitMs);
    const stdlib = isolate.compileScriptSync(counter.stdlibSource(), { filename: STDLIB_FILENAME });
    try {
      stdlib.runSync(context, { timeout: limits.wallLimitMs });
    } finally {
      releaseQuietly(stdlib);
    }
  } catch (error) {
    releaseQuietly(dispatcher);
    throw error;
  }
  return dispatcher;
}

/**
 * The context and dispatcher handles sandboxes hold and have not released
 * yet: every one a dispose() or a failed create() must give back. A count,
 * not a list, so that a leak stays visible without keeping the handle alive.
 */
const held = new WeakSet<object>();
let heldCount = 0;

/** Context and dispatcher handles currently held by sandboxes (2 per live sandbox, 0 when all are disposed). */
export function heldSandboxHandles(): number {
  return heldCount;
}

function hold<T extends object>(handle: T): T {
  held.add(handle);
  heldCount++;
  return handle;
}

/** Release a host-side handle; one already gone with its isolate is fine. */
function releaseQuietly(handle: { release(): void } | undefined): void {
  if (handle === undefined) return;
  if (held.delete(handle)) heldCount--;
  try {
    handle.release();
  } catch {
    // already released with its isolate
  }
}

function loadPolicy(isolate: ivm.Isolate, context: ivm.Context, source: string, limits: SandboxLimits, counter: OpCounter): void {
  let script: ivm.Script;
  try {
    script = isolate.compileScriptSync(instrumented(isolate, source, counter), { filename: POLICY_FILENAME });
  } catch (error) {
    if (isolate.isDisposed) throw crashFailure('memory', 'load', limits, 0);
    throw new PolicyFailure('compile', 'load', `the policy does not compile: ${errorText(error)}`);
  }
  try {
    runGuarded(isolate, limits, 'load', () => script.runSync(context, { timeout: limits.wallLimitMs }));
  } catch (error) {
    if (error instanceof PolicyFailure) throw error;
    throw new PolicyFailure('compile', 'load', `the policy's top level threw while loading: ${errorText(error)}`);
  } finally {
    releaseQuietly(script);
  }
}

/**
 * The policy as it runs. Source acorn cannot parse is compiled as written
 * only to get V8's own compile error; should V8 accept it, it is refused,
 * since it would run uncounted.
 */
function instrumented(isolate: ivm.Isolate, source: string, counter: OpCounter): string {
  try {
    return counter.policySource(source);
  } catch (error) {
    if (!(error instanceof InstrumentError)) throw error;
    isolate.compileScriptSync(source, { filename: POLICY_FILENAME }).release();
    throw new PolicyFailure('compile', 'load', `syntax the op counter cannot parse: ${truncate(error.message)}`);
  }
}

/** Run fn; a crash of the isolate (memory, runaway) becomes the matching PolicyFailure, anything else is rethrown. */
function runGuarded<T>(isolate: ivm.Isolate, limits: SandboxLimits, phase: FailurePhase, fn: () => T): T {
  const t0 = performance.now();
  try {
    return fn();
  } catch (error) {
    const wallMs = performance.now() - t0;
    const kind = crashKind(isolate, limits, wallMs);
    if (kind === null) throw error;
    throw crashFailure(kind, phase, limits, wallMs);
  }
}

/**
 * Why a call into the isolate threw, from state alone: isolated-vm disposes
 * an isolate that hits its memory limit (we never dispose one mid-call), and
 * it terminates a call only when the wall-clock timeout we gave it passed.
 * null: neither, so the error is not the policy's doing.
 */
function crashKind(isolate: ivm.Isolate, limits: SandboxLimits, wallMs: number): 'memory' | 'timeout' | null {
  if (isolate.isDisposed) return 'memory';
  // The timer starts after t0, so a timed-out call measures at least the limit; 1 ms for rounding.
  if (wallMs >= limits.wallLimitMs - 1) return 'timeout';
  return null;
}

function crashFailure(kind: 'memory' | 'timeout', phase: FailurePhase, limits: SandboxLimits, wallMs: number): PolicyFailure {
  const message =
    kind === 'memory'
      ? `${phase} exceeded the memory limit of ${limits.memoryLimitMb} MB; the isolate was disposed`
      : `${phase} did not return within ${limits.wallLimitMs} ms (ran ${wallMs.toFixed(0)} ms); the isolate was disposed`;
  return new PolicyFailure(kind, phase, message, true);
}
