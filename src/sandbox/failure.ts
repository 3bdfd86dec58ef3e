import { AutopoiesisError } from '../common/errors.js';

/**
 * Why a policy failed. The kind is decided by the sandbox from what it
 * observed (where the failure happened, whether the isolate survived, how
 * long the call ran, what came back), never by reading an error message:
 *
 * - `compile`          the source does not parse, or its top level throws while loading
 * - `missing-function` shouldReschedule or schedule is not defined as a function
 * - `timeout`          a call used more CPU than its limit, or did not return within the wall-clock limit
 * - `memory`           the isolate ran out of its memory limit (the isolate is gone)
 * - `throw`            the policy threw
 * - `invalid-plan`     the result is not a valid answer: not a boolean, not a valid plan for this
 *                      cluster (wrong length, unknown role or field, no prefill or no decode node
 *                      left while both are needed), a promise, or not plain data
 * - `too-large`        the plan is bigger than the output limit
 */
export const FAILURE_KINDS = [
  'compile',
  'missing-function',
  'timeout',
  'memory',
  'throw',
  'invalid-plan',
  'too-large',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Where the failure happened. */
export type FailurePhase = 'load' | 'shouldReschedule' | 'schedule';

export class PolicyFailure extends AutopoiesisError {
  // A bad policy is bad input, whoever wrote it.
  readonly exitCode = 2;

  constructor(
    readonly kind: FailureKind,
    readonly phase: FailurePhase,
    message: string,
    /** True when the isolate is gone: every later call of this instance fails at once. */
    readonly fatal = false,
  ) {
    super(message);
  }
}

/** A call on a sandbox its owner already disposed: a bug in the caller, not the policy's fault. */
export class SandboxDisposedError extends AutopoiesisError {
  readonly exitCode = 1;
}
