import { z } from 'zod';
import { MAX_NODES } from '../../evaluate/index.js';

/**
 * An offline evolution run, as `autopoiesis evolve` takes it. Stored with
 * the run in the lineage database, so that `--resume` continues with the
 * same settings.
 */
/** The llm mutator's endpoint settings (flags or environment), shared by offline runs and the control plane. */
export const LlmSettingsSchema = z.strictObject({
  baseURL: z.string().optional(),
  apiKey: z.string().optional(),
  model: z.string().optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxRetries: z.number().int().min(0).optional(),
  templatesDir: z.string().optional(),
});

export const EvolveConfigSchema = z.strictObject({
  workload: z.string().min(1).default('cc'),
  agents: z.number().int().positive().optional(),
  windowMinutes: z.number().positive().default(10),
  warmupMinutes: z.number().min(0).default(2),
  nodes: z.number().int().min(2).max(MAX_NODES).default(9),
  /** One node kind for all nodes, or one per node, comma-separated. */
  nodeKinds: z.string().min(1).default('gb300'),
  split: z.string().default('4P5D'),
  /** A mechanics preset with optional overrides, e.g. `sglang-pd,fetch=async`. */
  mechanics: z.string().min(1).default('evolving-infra'),
  iterations: z.number().int().min(0).default(200),
  maxMinutes: z.number().positive().optional(),
  islands: z.number().int().min(1).max(64).default(4),
  /** Candidates per iteration (evaluated in parallel); default = worker threads. */
  batch: z.number().int().min(1).max(256).optional(),
  threads: z.number().int().min(1).max(256).optional(),
  /**
   * Pipelined iterations (docs/evolution.md): iteration j + 1 is proposed
   * from the population as it stood at the start of iteration j and sent to
   * the pool while j runs, so no worker waits for the slowest candidate of a
   * batch. Deterministic either way; false is the one-batch-at-a-time loop.
   */
  pipeline: z.boolean().default(true),
  mutator: z.string().default('structural'),
  seed: z.number().int().min(0).default(1),
  schedCost: z.string().default('counted'),
  seedsDir: z.string().min(1),
  warmStart: z.string().optional(),
  warmStartCount: z.number().int().positive().default(8),
  migrationEvery: z.number().int().positive().default(10),
  exploitRatio: z.number().min(0).max(1).default(0.7),
  exploreRatio: z.number().min(0).max(1).default(0.2),
  inspirations: z.number().int().min(0).max(16).default(2),
  candidateWallMs: z.number().int().positive().default(30_000),
  cpuLimitMs: z.number().int().positive().default(100),
  memoryLimitMb: z.number().int().min(8).default(64),
  llm: LlmSettingsSchema.default({}),
  /**
   * The run is on a scenario (evaluator/scenarios): the fields above hold its
   * values with the flags applied, and the snapshot comes from the scenario
   * (membership, open loop, bursts). `contentHash` lets --resume refuse a
   * scenario file that changed since.
   */
  scenario: z.strictObject({ ref: z.string().min(1), contentHash: z.string().min(1) }).optional(),
  /**
   * More training scenarios (`--scenario a,b,...` beyond the first), each at
   * its own seed and window; rebuilt from these on --resume.
   */
  moreScenarios: z
    .array(z.strictObject({ ref: z.string().min(1), contentHash: z.string().min(1), seed: z.number().int().min(0), warmupMinutes: z.number().min(0), minutes: z.number().positive() }))
    .default([]),
  /** Each training scenario (or the workload) is cut into this many consecutive scored windows, each a training snapshot. */
  windows: z.number().int().min(1).max(32).default(1),
  /** Other realisations of the same training snapshots (the trace and simulator at these seeds), never trained on. */
  validateSeeds: z.array(z.number().int().min(0)).default([]),
  /** Elites are validated after every this many iterations, and at the end. */
  validateEvery: z.number().int().positive().default(10),
  /** How many of the best distinct elites are validated each time (those not validated yet). */
  validateTop: z.number().int().positive().max(256).default(8),
  /** The reference policy fitness is normalised by (default: evolving-infra.js of the seeds folder, else the shipped seeds). */
  reference: z.string().min(1).optional(),
  /** Replays per `tune` mutation. */
  tuneReplays: z.number().int().min(1).max(256).default(8),
  /**
   * Memory for the recent evaluations' trajectories (MB; 0: off). A child
   * first replays its parent's recorded policy calls; if it answers each as
   * the parent did, the parent's simulation is its own and none runs
   * (src/evaluate/trajectory.ts). Deterministic sched costs only. A
   * trajectory is 1-2 MB per snapshot on a 12-minute cc window.
   */
  trajectoryCacheMb: z.number().int().min(0).max(65_536).default(256),
  /** Replays per `knob-search` mutation (tune's default: the two cost alike). */
  knobReplays: z.number().int().min(1).max(256).default(8),
});
export type EvolveConfigInput = z.input<typeof EvolveConfigSchema>;
export type EvolveConfig = z.output<typeof EvolveConfigSchema>;
