import { z } from 'zod';
import { parseOrThrow } from '../common/validate.js';

/**
 * Counted ops per ms of CPU: the calibration of the `counted` scheduling cost
 * (NS_PER_OP = 6 ns in src/evaluate/sched-cost.ts, pinned equal by a test).
 */
export const OPS_PER_CPU_MS = 1e6 / 6;

/**
 * Limits of one policy sandbox.
 *
 * cpuLimitMs is the budget of one call (and of loading). With countOps (the
 * default) it is enforced deterministically as opLimit counted operations
 * (cpuLimitMs x OPS_PER_CPU_MS unless given): a call past it fails as
 * `timeout` after the same op on any machine, under any load, so a busy
 * machine can never turn an honest call into a failure. Without countOps, a
 * call that returns after spending more CPU time fails as `timeout` (the
 * isolate is kept). Either way wallLimitMs is the
 * watchdog: a call still running after that much wall-clock time is
 * terminated and the isolate disposed. The watchdog is looser than the budget
 * (10x by default) because wall time also counts waiting for a CPU, and
 * evaluators run many sandboxes side by side: an honest policy must not be
 * killed because the machine is busy, while a runaway one is still stopped
 * within a second.
 */
export const SandboxOptionsSchema = z
  .strictObject({
    /** isolated-vm's heap limit; 8 is its minimum. */
    memoryLimitMb: z.number().int().min(8).default(64),
    cpuLimitMs: z.number().positive().default(100),
    wallLimitMs: z.number().positive().optional(),
    /** The run's seed: seeds Math.random inside the isolate. */
    seed: z.number().int().default(0),
    /** For messages and reports. */
    name: z.string().min(1).default('policy'),
    /** Largest plan accepted, as JSON. */
    maxPlanBytes: z.number().int().min(256).default(64 * 1024),
    /**
     * Count the policy's operations (instrument.ts) for the `counted`
     * scheduling cost. Off, the policy runs exactly as written and every
     * call reports 0 ops.
     */
    countOps: z.boolean().default(true),
    /** Counted operations one call (or loading) may run; default cpuLimitMs x OPS_PER_CPU_MS. */
    opLimit: z.number().int().positive().optional(),
  })
  .transform((o) => {
    const wallLimitMs = Math.ceil(o.wallLimitMs ?? o.cpuLimitMs * 10);
    const opLimit = o.opLimit ?? Math.round(o.cpuLimitMs * OPS_PER_CPU_MS);
    // With the op budget in force, measured CPU only backs up the wall-clock watchdog.
    const cpuCheckMs = o.countOps ? Infinity : o.cpuLimitMs;
    return { ...o, wallLimitMs, opLimit, cpuCheckMs };
  })
  .refine((o) => o.wallLimitMs >= o.cpuLimitMs, {
    message: 'wallLimitMs must be at least cpuLimitMs',
    path: ['wallLimitMs'],
  });

export type SandboxOptions = z.input<typeof SandboxOptionsSchema>;
export type SandboxLimits = z.output<typeof SandboxOptionsSchema>;

export function resolveSandboxOptions(options: SandboxOptions = {}): SandboxLimits {
  return parseOrThrow(SandboxOptionsSchema, options, { field: 'sandbox' });
}
