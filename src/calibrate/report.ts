import { ExpectedTruth, restartSeconds } from '../sim/perf/index.js';
import { coefficientsFor, kvCapacity, loadModel, loadNodeKind } from '../sim/profiles/index.js';
import { checkBestSplit, describeTarget, meetsTarget, relError } from './compare.js';
import { summarizeLearning, type ModelError } from './learning.js';
import { round } from '../sim/index.js';
import { METRIC_LABELS, metricValue } from './metrics.js';
import { makeRun, sweepRuns, tableRun, type RunSettings, type RunSpec, type Selection } from './plan.js';
import type { RunOutcome } from './run-one.js';
import type { MicroTarget, Published, RunMetric, Targets } from './targets-schema.js';

/** One published figure next to its simulated value. */
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
  simulated: number | null;
  relError: number | null;
  /** The target in words (`±10%`, `±1 pp`, `in range`, `-` for report only). */
  target: string;
  /** null: no target, or nothing simulated. */
  met: boolean | null;
}

export interface SweepResult {
  id: string;
  title: string;
  publishedBest: string;
  simulatedBest: string;
  throughputBySplit: Record<string, number>;
  ok: boolean;
  nodesAway: number;
  throughputGap: number | null;
}

export interface CalibrationReport {
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
  const rows: RowResult[] = [];
  const sweeps: SweepResult[] = [];
  const figureRow = (id: string, group: string, column: string | undefined, metric: RunMetric, published: number, simulated: number): RowResult => {
    const { label, unit } = METRIC_LABELS[metric];
    const tol = t.targets[metric];
    return {
      id,
      group,
      column,
      metric,
      label,
      unit,
      published,
      simulated,
      relError: roundOrNull(relError(simulated, published)),
      target: describeTarget(published, tol, unit === '%' ? ' pp' : ` ${unit}`),
      met: meetsTarget(simulated, published, tol),
    };
  };

  for (const sweep of t.sweeps) {
    if (!sel.sweeps.has(sweep.id)) continue;
    const throughputBySplit: Record<string, number> = {};
    for (const run of sweepRuns(t, settings, sweep.id)) throughputBySplit[run.split] = get(run).metrics.throughput;
    const check = checkBestSplit(throughputBySplit, sweep.publishedBest, t.bestSplit);
    sweeps.push({ id: sweep.id, title: sweep.title, publishedBest: sweep.publishedBest, throughputBySplit, ...check, throughputGap: roundOrNull(check.throughputGap) });
    const atBest = get(makeRun(t, settings, sweep.workload, sweep.agents, sweep.publishedBest, sweep.mechanics)).metrics;
    for (const [metric, published] of figureEntries(sweep.figures)) {
      rows.push(figureRow(`${sweep.id}.${metric}`, sweep.id, undefined, metric, published, metricValue(atBest, metric)));
    }
  }

  for (const table of t.tables) {
    if (!sel.tables.has(table.id)) continue;
    for (const column of table.columns) {
      const m = get(tableRun(t, settings, table.id, column.id)).metrics;
      for (const [metric, published] of figureEntries(column.figures)) {
        rows.push(figureRow(`${table.id}.${column.id}.${metric}`, table.id, column.id, metric, published, metricValue(m, metric)));
      }
    }
  }

  const modelError = summarizeLearning([...outcomes.values()].map((o) => o.learning));
  if (sel.micro) {
    for (const micro of t.micro) {
      const simulated = measureMicro(t, settings, micro, get, modelError);
      rows.push({
        id: `micro.${micro.id}`,
        group: 'micro',
        metric: micro.id,
        label: micro.title,
        unit: '',
        published: micro.published,
        simulated,
        relError: roundOrNull(relError(simulated, micro.published)),
        target: describeTarget(micro.published, undefined),
        met: meetsTarget(simulated, micro.published, undefined),
      });
    }
  }
  return { rows, sweeps, modelError };
}

function figureEntries(figures: Partial<Record<RunMetric, number>>): [RunMetric, number][] {
  return Object.entries(figures).filter((e): e is [RunMetric, number] => typeof e[1] === 'number');
}

function roundOrNull(x: number | null): number | null {
  return x === null ? null : round(x, 4);
}

/** A micro figure: from the profiles the simulator's truth is built of, from a run, or from the fitted model's error. */
function measureMicro(t: Targets, s: RunSettings, micro: MicroTarget, get: (r: RunSpec) => RunOutcome, modelError: ModelError | null): number | null {
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
      return metricValue(get(tableRun(t, s, ms.table, ms.column)).metrics, ms.metric);
    case 'sweep-run': {
      const sweep = t.sweeps.find((x) => x.id === ms.sweep)!;
      return metricValue(get(makeRun(t, s, sweep.workload, sweep.agents, ms.split, sweep.mechanics)).metrics, ms.metric);
    }
    case 'model-error': {
      if (!modelError) return null;
      return ms.what === 'convergedAtSeconds' ? modelError.convergedAtSeconds : modelError.mapePct[ms.what];
    }
  }
}

/** The `--json` shape: exactly `{rows: [{id, metric, published, simulated, relError}], sweeps: [...], modelError}`. */
export function reportJson(r: CalibrationReport): unknown {
  return {
    rows: r.rows.map(({ id, metric, published, simulated, relError }) => ({ id, metric, published, simulated, relError })),
    sweeps: r.sweeps.map(({ id, publishedBest, simulatedBest, throughputBySplit }) => ({ id, publishedBest, simulatedBest, throughputBySplit })),
    modelError: r.modelError,
  };
}
