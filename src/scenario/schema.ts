import { z } from 'zod';
import { burstSchema } from '../workload/index.js';
import { MAX_NODES } from '../sim/index.js';

/**
 * The contract of a scenario file (evaluator/scenarios/<name>.json): every
 * thing a policy is judged on (design section 9). It resolves to the
 * simulator's run config (sim/scenario.ts, `RunConfig`); fields named as
 * there mean the same. Times in the membership timeline are simulated
 * seconds from the start of the run (warm-up included).
 */

const workloadSchema = z
  .strictObject({
    /** A preset name (evaluator/workloads) or a preset .json path. */
    preset: z.string().min(1).optional(),
    /** Or a trace file (.jsonl), replayed whole; relative paths are from the scenario file's folder. */
    trace: z.string().min(1).optional(),
    /** Closed loop with this many agents (default: the preset's). */
    agents: z.number().int().positive().optional(),
    /** Open loop: new agents per second (Poisson), instead of a closed loop. */
    arrivalRate: z.number().positive().finite().optional(),
    /** Synchronised sub-agent bursts (workload/bursts.ts); absent: the preset's own, usually off. */
    bursts: burstSchema.optional(),
    /** Coefficient of variation of per-call output lengths (workload/output-spread.ts); absent: the preset's own. */
    outputCv: z.number().nonnegative().finite().optional(),
  })
  .superRefine((w, ctx) => {
    if ((w.preset === undefined) === (w.trace === undefined)) ctx.addIssue({ code: 'custom', message: 'give exactly one of "preset" and "trace"' });
    if (w.agents !== undefined && w.arrivalRate !== undefined) ctx.addIssue({ code: 'custom', path: ['arrivalRate'], message: 'give either "agents" (closed loop) or "arrivalRate" (open loop), not both' });
    if (w.trace !== undefined) {
      for (const key of ['agents', 'arrivalRate', 'bursts', 'outputCv'] as const) {
        if (w[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" applies to presets only; a trace replays what it recorded` });
      }
    }
  });

const clusterSchema = z.strictObject({
  nodes: z.number().int().min(2).max(MAX_NODES),
  /** One node kind for every node, or one per node (gb300, gb200, h200, or a profile .json). */
  kinds: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).default('gb300'),
});

export const membershipChangeSchema = z.strictObject({
  node: z.number().int().min(0),
  /** Simulated seconds from the start of the run. */
  at: z.number().min(0).finite(),
  event: z.enum(['down', 'up']),
});

/** A seeded spot-preemption generator (spot.ts); the timeline is drawn at load time. */
export const spotSchema = z
  .strictObject({
    /** Seed of the draw (independent of the run's seed, so that seeds of the suite share one timeline). */
    seed: z.number().int().min(0),
    /** Losses (preemption events), each taking 1 or more nodes at once. */
    losses: z.number().int().min(1).max(100),
    /** Losses start uniformly between these minutes of the run. */
    fromMinute: z.number().min(0),
    toMinute: z.number().positive(),
    /** Nodes taken by one loss: uniform whole number in [min, max]. */
    nodesPerLoss: z.tuple([z.number().int().min(1), z.number().int().min(1)]),
    /** Minutes a lost node stays away: uniform in [min, max]. */
    downMinutes: z.tuple([z.number().positive(), z.number().positive()]),
    /** Never more than this many nodes down at once (a loss takes fewer when it would pass it). */
    maxDown: z.number().int().min(1),
  })
  .superRefine((s, ctx) => {
    if (s.toMinute <= s.fromMinute) ctx.addIssue({ code: 'custom', path: ['toMinute'], message: 'must be after fromMinute' });
    if (s.nodesPerLoss[1] < s.nodesPerLoss[0]) ctx.addIssue({ code: 'custom', path: ['nodesPerLoss'], message: '[min, max] with min <= max' });
    if (s.downMinutes[1] < s.downMinutes[0]) ctx.addIssue({ code: 'custom', path: ['downMinutes'], message: '[min, max] with min <= max' });
  });

export const ScenarioFileSchema = z.strictObject({
  /** Must match the file name (without .json) for shipped scenarios. */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes'),
  /** Which trade-off the scenario exercises (required: a scenario without a purpose is noise). */
  note: z.string().min(20, 'say which trade-off the scenario exercises (at least 20 characters)'),
  workload: workloadSchema,
  cluster: clusterSchema,
  /** A mechanics preset with optional overrides: `evolving-infra`, `dynamo`, `sglang-pd,fetch=async`. */
  mechanics: z.string().min(1).default('evolving-infra'),
  /** The starting split, e.g. 4P5D (must add up to cluster.nodes). */
  split: z.string().min(1),
  /** Nodes leaving and joining: a list of changes, or a seeded spot generator. */
  membership: z.union([z.array(membershipChangeSchema), z.strictObject({ spot: spotSchema })]).default([]),
  warmupMinutes: z.number().min(0),
  /** Scored minutes after the warm-up. */
  minutes: z.number().positive(),
  /** The default seed (the suite and `--seed` may run others). */
  seed: z.number().int().min(0).default(1),
});

export type ScenarioFileInput = z.input<typeof ScenarioFileSchema>;
export type ScenarioFile = z.output<typeof ScenarioFileSchema>;
export type SpotSpec = z.output<typeof spotSchema>;
