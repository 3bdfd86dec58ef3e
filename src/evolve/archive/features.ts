import { z } from 'zod';
import { parseOrThrow } from '../../common/validate.js';

/**
 * The behaviour space the MAP-Elites archive is a grid over: one axis per
 * feature, each cut by fixed edges. Edges are fixed up front (never
 * re-fitted to the values seen) so that a cell means the same behaviour at
 * iteration 1 and at iteration 10,000, and a checkpoint restores into the
 * same grid.
 *
 * With edges e0 < e1 < ... < e(k-1) a feature has k+1 bins: bin 0 is
 * value < e0, bin i is e(i-1) <= value < e(i), bin k is value >= e(k-1).
 * Values beyond the ends fall in the end bins; NaN or a missing feature falls
 * in bin 0 (a candidate that never measured a feature behaves like one that
 * did nothing).
 */
const FeatureBinsSchema = z
  .strictObject({
    /** The feature's name as the evaluator reports it. */
    name: z.string().min(1),
    /** Short label in cell names (`r2` for bin 2 of the feature keyed `r`); the name by default. */
    key: z.string().optional(),
    edges: z.array(z.number()).min(1).max(64),
  })
  .superRefine((f, ctx) => {
    for (let i = 1; i < f.edges.length; i++) {
      if (!(f.edges[i]! > f.edges[i - 1]!)) {
        ctx.addIssue({ code: 'custom', path: ['edges', i], message: `edges must be strictly increasing (${f.edges[i - 1]} then ${f.edges[i]})` });
      }
    }
  })
  .transform((f) => ({ name: f.name, key: f.key ?? f.name, edges: f.edges }));

/** Keys are letters or `_` only, so the bin number that follows a key in a cell name is unambiguous. */
const KEY = /^[A-Za-z_]+$/;

export const FeatureSpaceSchema = z
  .strictObject({ features: z.array(FeatureBinsSchema).min(1) })
  .superRefine((space, ctx) => {
    const names = new Set<string>();
    const keys = new Set<string>();
    space.features.forEach((f, i) => {
      if (names.has(f.name)) ctx.addIssue({ code: 'custom', path: ['features', i, 'name'], message: `feature "${f.name}" is listed twice` });
      if (!KEY.test(f.key)) ctx.addIssue({ code: 'custom', path: ['features', i, 'key'], message: `key "${f.key}" must be letters or _ only` });
      else if (keys.has(f.key)) ctx.addIssue({ code: 'custom', path: ['features', i, 'key'], message: `key "${f.key}" is used twice` });
      names.add(f.name);
      keys.add(f.key);
    });
  });

export type FeatureSpaceInput = z.input<typeof FeatureSpaceSchema>;
export type FeatureSpaceConfig = z.output<typeof FeatureSpaceSchema>;

/**
 * Default bins over the evaluator's three features (6 x 6 x 5 = 180 cells).
 *
 * - rescheduleCount, key `r`: edges [0.5, 2.5, 6.5, 15.5, 40.5] give bins
 *   0 | 1-2 | 3-6 | 7-15 | 16-40 | 41+ reschedules. Counts are integers, so
 *   the half-integer edges never sit on a value; the widths grow because one
 *   more reschedule matters more to a calm policy than to a busy one.
 * - schedCpuMsPerCall, key `c`: edges [0.03, 0.05, 0.2, 1, 5] ms, about 4-5x
 *   apart above the first (log-spaced): < 30 us | 30-50 us | 50-200 us |
 *   0.2-1 ms | 1-5 ms | >= 5 ms (a search or simulation per call). Cost spans
 *   orders of magnitude, so equal ratios, not equal widths. The first edge
 *   sits above the `counted` cost's fixed 25 us per call (sched-cost.ts), so
 *   bin 0 holds the policies of under about 800 ops per call (a few
 *   comparisons and sums), which no call can charge less than.
 * - nodesSwitchedPerReschedule, key `s`: edges [0.01, 1.01, 2.01, 4.01] give
 *   0 (never switches) | up to 1 | up to 2 | up to 4 | more than 4 nodes per
 *   reschedule: small steps versus sweeping re-splits.
 *
 * Knob use (contract v2: plans that set routing, eviction, pacing or
 * batching) is not an axis yet, on purpose: the features come from the
 * evaluator's run (src/evaluate), which does not count knob plans yet, and a
 * fourth axis changes every cell name, so archives checkpointed on this grid
 * would no longer restore (isCell). A policy's knob use does show in its
 * behaviour on the three axes (a router change is a reschedule that switches
 * no node: the `s` axis). Adding it: a `knobPlanShare` feature from the
 * evaluator, edges [0.01, 0.5], opt-in through the feature-space config.
 */
export const DEFAULT_FEATURE_BINS: FeatureSpaceConfig = deepFreeze(
  parseOrThrow(FeatureSpaceSchema, {
    features: [
      { name: 'rescheduleCount', key: 'r', edges: [0.5, 2.5, 6.5, 15.5, 40.5] },
      { name: 'schedCpuMsPerCall', key: 'c', edges: [0.03, 0.05, 0.2, 1, 5] },
      { name: 'nodesSwitchedPerReschedule', key: 's', edges: [0.01, 1.01, 2.01, 4.01] },
    ],
  }),
);

/** Validate a feature-space config; a bad one is an InputError naming the field. */
export function resolveFeatureSpace(input: FeatureSpaceInput = DEFAULT_FEATURE_BINS, field?: string): FeatureSpaceConfig {
  return parseOrThrow(FeatureSpaceSchema, input, { field });
}

/** The bin of one value on one axis (see the file comment for the convention). */
export function binOf(edges: readonly number[], value: number | undefined): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return 0;
  let bin = 0;
  while (bin < edges.length && value >= edges[bin]!) bin++;
  return bin;
}

/**
 * A validated, frozen feature space: the only thing that maps features to a
 * cell. It keeps its own deep-frozen copy of the config, so nothing the
 * caller does later (and nothing inserted into an archive) can move a bin.
 */
export class FeatureSpace {
  readonly config: FeatureSpaceConfig;

  constructor(config: FeatureSpaceInput = DEFAULT_FEATURE_BINS) {
    this.config = deepFreeze(structuredClone(resolveFeatureSpace(config)));
  }

  /** Number of cells in the grid. */
  get cellCount(): number {
    return this.config.features.reduce((n, f) => n * (f.edges.length + 1), 1);
  }

  binsOf(features: Readonly<Record<string, number>>): number[] {
    return this.config.features.map((f) => binOf(f.edges, Object.hasOwn(features, f.name) ? features[f.name] : undefined));
  }

  /** The cell name, e.g. `r2.c1.s0`. */
  cellOf(features: Readonly<Record<string, number>>): string {
    const bins = this.binsOf(features);
    return this.config.features.map((f, i) => `${f.key}${bins[i]}`).join('.');
  }

  /** Whether a string names a cell of this grid (used to check restored checkpoints). */
  isCell(cell: string): boolean {
    const parts = cell.split('.');
    if (parts.length !== this.config.features.length) return false;
    return this.config.features.every((f, i) => {
      const part = parts[i]!;
      if (!part.startsWith(f.key)) return false;
      const digits = part.slice(f.key.length);
      return /^(0|[1-9]\d*)$/.test(digits) && Number(digits) <= f.edges.length;
    });
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
