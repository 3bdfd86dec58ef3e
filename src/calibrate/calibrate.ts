import { buildReport, type CalibrationReport } from './report.js';
import { defaultSettings, planRuns, selectGroups, type RunSettings, type RunSpec } from './plan.js';
import { runAll } from './pool.js';
import { checkRun, type RunOutcome } from './run-one.js';
import { checkSeeds } from './seeds.js';
import { loadTargets } from './targets.js';
import type { Targets } from './targets-schema.js';

export interface CalibrateOptions {
  /** A targets file other than the shipped one. */
  targetsFile?: string;
  /** Comma-separated group names (see groupNames); all groups when absent. */
  only?: string;
  /** Override the targets' warm-up / scored minutes / seeds (--seeds; tests use short runs). */
  settings?: Partial<RunSettings>;
  threads?: number;
  onRunDone?: (spec: RunSpec, outcome: RunOutcome, done: number, total: number) => void;
}

export interface CalibrationRun {
  targets: Targets;
  settings: RunSettings;
  report: CalibrationReport;
  runs: number;
  /** Sum of the runs' own wall times (CPU-ish work) and the elapsed wall time of the whole calibration. */
  runSeconds: number;
  wallSeconds: number;
}

/** Plan the runs of the selected groups, run them (on worker threads), compare with the published figures. */
export async function calibrate(options: CalibrateOptions = {}): Promise<CalibrationRun> {
  const targets = loadTargets(options.targetsFile);
  const selection = selectGroups(targets, options.only);
  const settings = { ...defaultSettings(targets), ...options.settings };
  settings.seeds = checkSeeds(settings.seeds);
  const specs = planRuns(targets, selection, settings);
  for (const spec of specs) checkRun(spec);
  const started = performance.now();
  const outcomes = await runAll(specs, { threads: options.threads, onDone: options.onRunDone });
  const wallSeconds = (performance.now() - started) / 1000;
  const report = buildReport(targets, selection, settings, outcomes);
  let runSeconds = 0;
  for (const o of outcomes.values()) runSeconds += o.wallSeconds;
  return { targets, settings, report, runs: specs.length, runSeconds, wallSeconds };
}
