/** Calibration of the simulator against the published GB300 figures (design/CALIBRATION.md). */
export { calibrate, type CalibrateOptions, type CalibrationRun } from './calibrate.js';
export { loadTargets, groupNames, allSplits, splitCounts, TARGETS_FILE } from './targets.js';
export { TargetsSchema, RUN_METRICS, type Targets, type Published, type Tolerance, type RunMetric } from './targets-schema.js';
export { relError, meetsTarget, checkBestSplit, describeTarget, type BestSplitCheck } from './compare.js';
export { planRuns, selectGroups, defaultSettings, makeRun, type RunSpec, type RunSettings, type Selection } from './plan.js';
export { runOne, checkRun, type RunOutcome } from './run-one.js';
export { runAll, type RunAllOptions } from './pool.js';
export { buildReport, reportJson, sweepResult, type CalibrationReport, type RowResult, type SweepResult } from './report.js';
export { spreadOf, parseSeedList, checkSeeds, SeedListSchema, MAX_SEEDS, type Spread } from './seeds.js';
export { reportGrids, renderMarkdown, type Grid } from './format.js';
export { learningOf, summarizeLearning, combineModelErrors, type Learning, type ModelError } from './learning.js';
export { replaceCalibrationSection, CALIBRATION_BEGIN, CALIBRATION_END, CALIBRATION_DOC } from './docs-section.js';
export { metricValue, METRIC_LABELS } from './metrics.js';
