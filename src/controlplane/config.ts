import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../common/package-root.js';
import { parseOrThrow } from '../common/validate.js';
import { LlmSettingsSchema } from '../evolve/engine/index.js';

/**
 * The control plane's settings (the `serve` command's evolution flags).
 * Stored with the run, so `serve --resume` continues with the same ones.
 */
export const ControlPlaneConfigSchema = z
  .strictObject({
    /** Scored minutes of each snapshot asked of the data plane. */
    windowMinutes: z.number().positive().default(10),
    /** Warm-up minutes before the window (replayed, not scored). */
    warmupMinutes: z.number().min(0).default(2),
    /** Wall-clock limit of one cycle, real minutes. */
    cycleMaxMinutes: z.number().positive().default(5),
    /** A cycle's best is staged only if its T_total is below the deployed policy's by this fraction of it. */
    margin: z.number().min(0).max(1).default(0.02),
    /**
     * Validate a cycle's best on a second recent window (the one that ended
     * where the training window starts) before staging: it must beat the
     * deployed policy by the margin on both. Cycles then start once the data
     * plane has recorded warm-up + two windows.
     */
    validateWindow: z.boolean().default(true),
    /** Iterations per cycle after the starters (the time limit usually ends a cycle first). */
    iterationsPerCycle: z.number().int().min(0).default(200),
    islands: z.number().int().min(1).max(64).default(4),
    /** Worker threads evaluating candidates; default all cores but one, which the data plane keeps. */
    threads: z.number().int().min(1).max(256).default(() => Math.max(1, availableParallelism() - 1)),
    /** Candidates per iteration; default = threads. */
    batch: z.number().int().min(1).max(256).optional(),
    mutator: z.string().default('structural'),
    llm: LlmSettingsSchema.default({}),
    seed: z.number().int().min(0).default(1),
    schedCost: z.string().default('counted'),
    /** The first cycle starts from these seeds (and the deployed policy). */
    seedsDir: z.string().min(1).default(() => join(packageRoot(), 'seeds')),
    /** Elites of a cycle carried into the next one. */
    warmStartCount: z.number().int().positive().default(8),
    migrationEvery: z.number().int().positive().default(10),
    exploitRatio: z.number().min(0).max(1).default(0.7),
    exploreRatio: z.number().min(0).max(1).default(0.2),
    inspirations: z.number().int().min(0).max(16).default(2),
    candidateWallMs: z.number().int().positive().default(30_000),
    cpuLimitMs: z.number().int().positive().default(100),
    memoryLimitMb: z.number().int().min(8).default(64),
    /**
     * Memory for a cycle's recent trajectories (MB; 0: off), as evolve's
     * trajectoryCacheMb. Smaller than evolve's 256: a control plane runs
     * beside the data plane for days (bench:soak's 1 GB budget).
     */
    trajectoryCacheMb: z.number().int().min(0).max(65_536).default(64),
    /** Where winners are staged for the data plane to pick up. */
    stagingDir: z.string().min(1).default('policies/staging'),
    /** Pause between two cycles of the background loop, seconds (0: back to back). */
    intervalSeconds: z.number().min(0).default(0),
    /** Pause after a failed cycle, seconds; doubles on each consecutive infrastructure failure, up to maxBackoffSeconds. */
    backoffSeconds: z.number().min(0).default(5),
    maxBackoffSeconds: z.number().min(0).default(300),
  })
  .refine((c) => c.exploitRatio + c.exploreRatio <= 1 + 1e-9, { message: 'exploitRatio + exploreRatio must not exceed 1', path: ['exploreRatio'] });

export type ControlPlaneConfigInput = z.input<typeof ControlPlaneConfigSchema>;
export type ControlPlaneConfig = z.output<typeof ControlPlaneConfigSchema>;

/** Parse with defaults; a bad value is an InputError naming the field. */
export function resolveControlPlaneConfig(input: unknown = {}, field = 'controlPlane'): ControlPlaneConfig {
  return parseOrThrow(ControlPlaneConfigSchema, input, { field });
}
