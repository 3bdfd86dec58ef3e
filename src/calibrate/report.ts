import { ExpectedTruth, restartSeconds } from '../sim/perf/index.js';
import { coefficientsFor, kvCapacity, loadModel, loadNodeKind } from '../sim/profiles/index.js';
import { checkBestSplit, describeTarget, meetsTarget, relError } from './compare.js';
import { combineModelErrors, summarizeLearning, type ModelError } from './learning.js';
import { round } from '../sim/index.js';
import { METRIC_LABELS, metricValue } from './metrics.js';
import { makeRun, microRun, planRuns, sweepRuns, tableRun, type RunSettings, type RunSpec, type Selection } from './plan.js';
import type { RunOutcome } from './run-one.js';
import type { MicroTarget, Published, RunMetric, SweepTarget, Targets } from './targets-schema.js';
import { spreadOf, type Spread } from './seeds.js';

/** One published figure next to its simulated value (the mean over the seeds). */
export interface RowResult {
  id: string;
  /** The --only group it belongs to. */
  group: string;
  /** Table column (system or data-plane variant), if any. */
  column?: string;
  metric: string;
  label: string;
  unit: string;
  published: Published;
  /** Mean over the seeds (for a figure from the profiles, its one value). */
  simulated: number | null;
  /** The simulated figure per seed with its spread; null for figures that do not come from runs. */
  spread: Spread | null;
  relError: number | null;
  /** The target in words (`±10%`, `±1 pp`, `in range`, `-` for report only). */
  target: string;
  /** Whether the mean meets the target; null: no target, or nothing simulated. */
  met: boolean | null;
  /** Seeds whose own value meets the target (null where met is, or without a spread). */
  seedsMet: number | null;
}

export interface SweepResult {
  id: string;
  title: string;
  publishedBest: string;
  /** The split with the best mean throughput over the seeds. */
  simulatedBest: string;
  /** Mean throughput per split over the seeds, and its standard deviation. */
  throughputBySplit: Record<string, number>;
  throughputSdBySplit: Record<string, number>;
  /** Each seed's own best split, in the order of the seeds. */
  bestBySeed: string[];
  /** Seeds whose own best split is the published one. */
  seedsAgreeing: number;
  ok: boolean;
  nodesAway: number;
  /** 1 - mean throughput at the published split / at the simulated best (see checkBestSplit). */
  throughputGap: number | null;
  /** Standard deviation over seeds of the same gap taken seed by seed (paired: both splits of one seed). */
  throughputGapSd: number | null;
}

export interface CalibrationReport {
  seeds: number[];
  rows: RowResult[];
  sweeps: SweepResult[];
  modelError: ModelError | null;
}

/** Builds the report of a selection from the outcomes of its runs (planRuns must have planned them all). */
export function buildReport(t: Targets, sel: Selection, settings: RunSettings, outcomes: ReadonlyMap<string, RunOutcome>): CalibrationReport {
  const get = (run: RunSpec): RunOutcome => {
    const o = outcomes.get(run.key);
    if (!o) throw new Error(`calibration run ${run.key} has no outcome`);
    return o;
  };
  const seeds = settings.seeds;
  /** A figure of the same run over every seed. */
  const overSeeds = (runOf: (seed: number) => RunSpec, metric: RunMetric): Spread | null => spreadOf(seeds.map((seed) => metricValue(get(runOf(seed)).metrics, metric)));
  const rows: RowResult[] = [];
  const sweeps: SweepResult[] = [];
  const figureRow = (id: string, group: string, column: string | undefined, metric: RunMetric, published: number, spread: Spread | null): RowResult => {
    const { label, unit } = METRIC_LABELS[metric];
    const tol = t.targets[metric];
    const simulated = spread?.mean ?? null;
    const met = meetsTarget(simulated, published, tol);
    return {
      id,
      group,
      column,
      metric,
      label,
      unit,
      published,
      simulated,
      spread,
      relError: roundOrNull(relError(simulated, published)),
      target: describeTarget(published, tol, unit === '%' ? ' pp' : ` ${unit}`),
      met,
      seedsMet: seedsMeeting(met, spread, published, tol),
    };
  };

  for (const sweep of t.sweeps) {
    if (!sel.sweeps.has(sweep.id)) continue;
    sweeps.push(sweepResult(t, sweep, seeds.map((seed) => {
      const bySplit: Record<string, number> = {};
      for (const run of sweepRuns(t, settings, seed, sweep.id)) bySplit[run.split] = get(run).metrics.throughput;
      return bySplit;
    })));
    const atBest = (seed: number) => makeRun(t, settings, seed, sweep.workload, sweep.agents, sweep.publishedBest, sweep.mechanics);
    for (const [metric, published] of figureEntries(sweep.figures)) {
      rows.push(figureRow(`${sweep.id}.${metric}`, sweep.id, undefined, metric, published, overSeeds(atBest, metric)));
    }
  }

  for (const table of t.tables) {
    if (!sel.tables.has(table.id)) continue;
    for (const column of table.columns) {
      const run = (seed: number) => tableRun(t, settings, seed, table.id, column.id);
      for (const [metric, published] of figureEntries(column.figures)) {
        rows.push(figureRow(`${table.id}.${column.id}.${metric}`, table.id, column.id, metric, published, overSeeds(run, metric)));
      }
    }
  }

  // Per seed over that seed's runs, then the mean over seeds (see combineModelErrors).
  const modelErrorBySeed = seeds.map((seed) => summarizeLearning(planRuns(t, sel, { ...settings, seeds: [seed] }).map((r) => get(r).learning)));
  const modelError = combineModelErrors(modelErrorBySeed);
  if (sel.micro) {
    for (const micro of t.micro) {
      const ms = micro.measure;
      let spread: Spread | null = null;
      let simulated: number | null;
      if (ms.kind === 'table-run' || ms.kind === 'sweep-run') {
        spread = overSeeds((seed) => microRun(t, settings, seed, ms)!, ms.metric);
        simulated = spread?.mean ?? null;
      } else if (ms.kind === 'model-error') {
        spread = spreadOf(modelErrorBySeed.map((me) => (me ? modelErrorFigure(me, ms.what) : null)));
        simulated = spread?.mean ?? measureMicro(t, micro, modelError);
      } else simulated = measureMicro(t, micro, modelError);
      const met = meetsTarget(simulated, micro.published, undefined);
      rows.push({
        id: `micro.${micro.id}`,
        group: 'micro',
        metric: micro.id,
        label: micro.title,
        unit: '',
        published: micro.published,
        simulated,
        spread,
        relError: roundOrNull(relError(simulated, micro.published)),
        target: describeTarget(micro.published, undefined),
        met,
        seedsMet: seedsMeeting(met, spread, micro.published, undefined),
      });
    }
  }
  return { seeds: [...seeds], rows, sweeps, modelError };
}

/** How many seeds meet the target on their own; null when the row has no target or no per-seed values. */
function seedsMeeting(met: boolean | null, spread: Spread | null, published: Published, tol: Parameters<typeof meetsTarget>[2]): number | null {
  return met === null || !spread ? null : spread.values.filter((v) => meetsTarget(v, published, tol) === true).length;
}

/**
 * A sweep over seeds: the simulated best is the split with the best mean
 * throughput; each seed's own best is reported beside it, and the gap of the
 * published split is also taken seed by seed for its spread.
 */
export function sweepResult(t: Targets, sweep: SweepTarget, perSeed: readonly Record<string, number>[]): SweepResult {
  const splits = Object.keys(perSeed[0] ?? {});
  const throughputBySplit: Record<string, number> = {};
  const throughputSdBySplit: Record<string, number> = {};
  for (const split of splits) {
    const s = spreadOf(perSeed.map((bySplit) => bySplit[split] ?? null));
    throughputBySplit[split] = s?.mean ?? NaN;
    throughputSdBySplit[split] = s?.sd ?? NaN;
  }
  const check = checkBestSplit(throughputBySplit, sweep.publishedBest, t.bestSplit);
  const bestBySeed = perSeed.map((bySplit) => checkBestSplit(bySplit, sweep.publishedBest, t.bestSplit).simulatedBest);
  const gaps = perSeed.map((bySplit) => {
    const best = bySplit[check.simulatedBest];
    const pub = bySplit[sweep.publishedBest];
    return best === undefined || pub === undefined ? null : best > 0 ? 1 - pub / best : 0;
  });
  return {
    id: sweep.id,
    title: sweep.title,
    publishedBest: sweep.publishedBest,
    throughputBySplit,
    throughputSdBySplit,
    bestBySeed,
    seedsAgreeing: bestBySeed.filter((b) => b === sweep.publishedBest).length,
    ...check,
    throughputGap: roundOrNull(check.throughputGap),
    throughputGapSd: check.throughputGap === null ? null : roundOrNull(spreadOf(gaps)?.sd ?? null),
  };
}

function figureEntries(figures: Partial<Record<RunMetric, number>>): [RunMetric, number][] {
  return Object.entries(figures).filter((e): e is [RunMetric, number] => typeof e[1] === 'number');
}

function roundOrNull(x: number | null): number | null {
  return x === null ? null : round(x, 4);
}

/** A micro figure that does not come from one run per seed: from the profiles the simulator's truth is built of, or from the fitted model's error. */
function measureMicro(t: Targets, micro: MicroTarget, modelError: ModelError | null): number | null {
  const ms = micro.measure;
  switch (ms.kind) {
    case 'kv-capacity': {
      const cap = kvCapacity(loadNodeKind(t.setup.nodeKind), loadModel(ms.model));
      if (ms.what === 'hostOverGpu') return round(cap.hostTokens / cap.gpuTokens, 3);
      return cap[ms.what];
    }
    case 'decode-iteration': {
      const truth = new ExpectedTruth(coefficientsFor(loadModel(ms.model), loadNodeKind(t.setup.nodeKind)));
      return round(truth.decodeTime(ms.batch, ms.contextTokens) * 1000, 3);
    }
    case 'decode-context-effect': {
      const truth = new ExpectedTruth(coefficientsFor(loadModel(ms.model), loadNodeKind(t.setup.nodeKind)));
      return round((truth.decodeTime(ms.batch, ms.contextTokens) / truth.decodeTime(ms.batch, 0) - 1) * 100, 3);
    }
    case 'restart-mean': {
      // The mean of the restart law the simulator draws from (midpoint rule over its inverse CDF).
      const kind = loadNodeKind(t.setup.nodeKind);
      const n = 10_000;
      let sum = 0;
      for (let i = 0; i < n; i++) sum += restartSeconds(kind, (i + 0.5) / n);
      return round(sum / n, 2);
    }
    case 'table-run':
    case 'sweep-run':
      throw new Error('run figures are averaged over seeds in buildReport');
    case 'model-error': {
      return modelError ? modelErrorFigure(modelError, ms.what) : null;
    }
  }
}

function modelErrorFigure(me: ModelError, what: 'mean' | 'prefillSingle' | 'prefillBatch' | 'decode' | 'convergedAtSeconds'): number | null {
  return what === 'convergedAtSeconds' ? me.convergedAtSeconds : me.mapePct[what];
}

/**
 * The `--json` shape: `{seeds, rows: [{id, metric, published, simulated, sd, min, max, perSeed, seedsMet, relError}],
 * sweeps: [...], modelError}`; `simulated` is the mean over seeds, `sd`..`perSeed` null for figures not from runs.
 */
export function reportJson(r: CalibrationReport): unknown {
  return {
    seeds: r.seeds,
    rows: r.rows.map(({ id, metric, published, simulated, spread, seedsMet, relError }) => ({
      id,
      metric,
      published,
      simulated,
      sd: spread?.sd ?? null,
      min: spread?.min ?? null,
      max: spread?.max ?? null,
      perSeed: spread?.values ?? null,
      seedsMet,
      relError,
    })),
    sweeps: r.sweeps.map(({ id, publishedBest, simulatedBest, throughputBySplit, throughputSdBySplit, bestBySeed, seedsAgreeing, throughputGap, throughputGapSd }) => ({
      id,
      publishedBest,
      simulatedBest,
      throughputBySplit,
      throughputSdBySplit,
      bestBySeed,
      seedsAgreeing,
      throughputGap,
      throughputGapSd,
    })),
    modelError: r.modelError,
  };
}
