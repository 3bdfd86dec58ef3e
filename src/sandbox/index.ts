/**
 * Runs policies inside isolated-vm: one isolate per policy instance, CPU and
 * memory limits, typed failures, deterministic Math.random and Date.
 */
export { PolicySandbox, type ScheduleResult, type ShouldRescheduleResult } from './policy-sandbox.js';
export { FAILURE_KINDS, PolicyFailure, SandboxDisposedError, type FailureKind, type FailurePhase } from './failure.js';
export { SandboxOptionsSchema, type SandboxLimits, type SandboxOptions } from './options.js';
