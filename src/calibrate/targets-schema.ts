import { z } from 'zod';
import { MAX_NODES } from '../sim/index.js';
import { SeedListSchema } from './seeds.js';

/**
 * The calibration targets file (evaluator/calibration/targets.json): the
 * published figures of design/CALIBRATION.md, the setup that reproduces them,
 * and the tolerances of issue #3. Strict objects, so a typo fails loudly;
 * every object may carry a `_comment` (JSON has no comments).
 */

const comment = { _comment: z.string().optional() };
const id = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes');

/** Figures a simulation run yields (see metricValue in metrics.ts). Percentages are 0..100. */
export const RUN_METRICS = [
  'throughput',
  'ttft.mean',
  'ttft.p95',
  'e2e.mean',
  'e2e.p95',
  'kvHit.actual',
  'kvHit.ideal',
  'lostKvReuse',
  'uncachedTokens',
  'prefillIdle',
  'tpot',
  'prefillQueueWait.p50',
] as const;
export const RunMetricSchema = z.enum(RUN_METRICS);
export type RunMetric = z.infer<typeof RunMetricSchema>;

/** A published point value, or a published range the simulated value must fall in. */
export const PublishedSchema = z.union([
  z.number(),
  z.strictObject({ min: z.number(), max: z.number() }).refine((r) => r.min <= r.max, { message: 'min must not exceed max' }),
]);
export type Published = z.infer<typeof PublishedSchema>;

const figures = z.partialRecord(RunMetricSchema, z.number()).refine((f) => Object.keys(f).length > 0, { message: 'at least one figure' });

/** rel: |simulated - published| <= rel * |published|; abs: |simulated - published| <= abs (same unit). */
export const ToleranceSchema = z.union([z.strictObject({ rel: z.number().positive() }), z.strictObject({ abs: z.number().positive() })]);
export type Tolerance = z.infer<typeof ToleranceSchema>;

const split = z.string().regex(/^\d+P\d+D$/, 'a split like 4P5D');

const SweepSchema = z.strictObject({
  ...comment,
  id,
  title: z.string().min(1),
  workload: z.string().min(1),
  agents: z.number().int().positive(),
  /** A mechanics preset with optional overrides, as `--mechanics` takes it. */
  mechanics: z.string().min(1),
  publishedBest: split,
  /** The published figures at the published best split. */
  figures,
});

const ColumnSchema = z.strictObject({
  ...comment,
  id,
  title: z.string().min(1),
  mechanics: z.string().min(1),
  figures,
});

const TableSchema = z.strictObject({
  ...comment,
  id,
  title: z.string().min(1),
  workload: z.string().min(1),
  agents: z.number().int().positive(),
  split,
  columns: z.array(ColumnSchema).min(1),
});

const MeasureSchema = z.discriminatedUnion('kind', [
  /** From the model and node-kind profiles (what the simulator's truth uses). */
  z.strictObject({ kind: z.literal('kv-capacity'), model: z.string().min(1), what: z.enum(['hostTokens', 'gpuTokens', 'hostOverGpu']) }),
  z.strictObject({ kind: z.literal('decode-iteration'), model: z.string().min(1), batch: z.number().int().positive(), contextTokens: z.number().min(0) }),
  z.strictObject({ kind: z.literal('decode-context-effect'), model: z.string().min(1), batch: z.number().int().positive(), contextTokens: z.number().positive() }),
  z.strictObject({ kind: z.literal('restart-mean') }),
  /** A figure of a simulation run of a table column or of a sweep's split. */
  z.strictObject({ kind: z.literal('table-run'), table: id, column: id, metric: RunMetricSchema }),
  z.strictObject({ kind: z.literal('sweep-run'), sweep: id, split, metric: RunMetricSchema }),
  /** The online-fitted iteration model's error, from the runs' `learning` (null until the simulator reports it). */
  z.strictObject({ kind: z.literal('model-error'), what: z.enum(['mean', 'prefillSingle', 'prefillBatch', 'decode', 'convergedAtSeconds']) }),
]);
export type Measure = z.infer<typeof MeasureSchema>;

const MicroSchema = z.strictObject({
  ...comment,
  id,
  title: z.string().min(1),
  published: PublishedSchema,
  measure: MeasureSchema,
});

/**
 * How the runs are set up. `seeds`: the workload seeds every figure is
 * averaged over; `seed` (one seed) is what older files have and still reads
 * as a list of one. Giving both is an error, so a file says its seeds once.
 */
const SetupSchema = z
  .strictObject({
    ...comment,
    nodes: z.number().int().min(2).max(MAX_NODES),
    nodeKind: z.string().min(1),
    warmupMinutes: z.number().min(0),
    scoredMinutes: z.number().positive(),
    seeds: SeedListSchema.optional(),
    seed: z.number().int().min(0).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.seeds !== undefined && s.seed !== undefined) ctx.addIssue({ code: 'custom', path: ['seed'], message: 'give seeds or seed, not both' });
    if (s.seeds === undefined && s.seed === undefined) ctx.addIssue({ code: 'custom', path: ['seeds'], message: 'missing: the workload seeds, e.g. [1, 2, 3]' });
  })
  .transform(({ seed, seeds, ...rest }) => ({ ...rest, seeds: seeds ?? [seed!] }));

export const TargetsSchema = z
  .strictObject({
    ...comment,
    /** Where the figures come from. */
    source: z.string().min(1),
    setup: SetupSchema,
    /** Tolerance per metric; metrics without one are reported only. */
    targets: z.strictObject({ ...comment }).catchall(ToleranceSchema),
    bestSplit: z.strictObject({ ...comment, maxNodesAway: z.number().int().min(0), maxThroughputGap: z.number().min(0) }),
    sweeps: z.array(SweepSchema).min(1),
    tables: z.array(TableSchema),
    micro: z.array(MicroSchema),
  })
  .superRefine((t, ctx) => {
    for (const key of Object.keys(t.targets)) {
      if (key !== '_comment' && !RunMetricSchema.safeParse(key).success) {
        ctx.addIssue({ code: 'custom', path: ['targets', key], message: `unknown metric (known: ${RUN_METRICS.join(', ')})` });
      }
    }
    const seen = new Set<string>();
    const groups = [...t.sweeps.map((s) => s.id), ...t.tables.map((x) => x.id), 'micro'];
    groups.forEach((g, i) => {
      if (seen.has(g)) ctx.addIssue({ code: 'custom', path: i < t.sweeps.length ? ['sweeps', i, 'id'] : ['tables', i - t.sweeps.length, 'id'], message: `duplicate id "${g}"` });
      seen.add(g);
    });
    const microIds = new Set<string>();
    t.micro.forEach((m, i) => {
      if (microIds.has(m.id)) ctx.addIssue({ code: 'custom', path: ['micro', i, 'id'], message: `duplicate id "${m.id}"` });
      microIds.add(m.id);
      const ms = m.measure;
      if (ms.kind === 'table-run') {
        const table = t.tables.find((x) => x.id === ms.table);
        if (!table) ctx.addIssue({ code: 'custom', path: ['micro', i, 'measure', 'table'], message: `no table "${ms.table}"` });
        else if (!table.columns.some((c) => c.id === ms.column)) ctx.addIssue({ code: 'custom', path: ['micro', i, 'measure', 'column'], message: `table "${ms.table}" has no column "${ms.column}"` });
      } else if (ms.kind === 'sweep-run' && !t.sweeps.some((s) => s.id === ms.sweep)) {
        ctx.addIssue({ code: 'custom', path: ['micro', i, 'measure', 'sweep'], message: `no sweep "${ms.sweep}"` });
      }
    });
  });

export type Targets = z.output<typeof TargetsSchema>;
export type SweepTarget = Targets['sweeps'][number];
export type TableTarget = Targets['tables'][number];
export type MicroTarget = Targets['micro'][number];
