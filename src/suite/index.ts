/**
 * The scenario suite (design section 9): hindsight oracles per scenario
 * (best static split, window oracle), cached on disk, and every policy on
 * every scenario scored against them, in worker threads or as queue jobs
 * (src/queue). Depends on scenario, evaluate, sim and queue; nothing below
 * it depends on it.
 */
export { splitCandidates, MAX_CANDIDATES, type SplitCandidate } from './candidates.js';
export { availabilityPlacements, downSeconds } from './placement.js';
export { runStaticSplit, SUITE_CAP_FACTOR, type SplitRun, type SliceCount } from './split-run.js';
export { bestStatic, windowOracle, completionsIn, staticBestOf, ORACLE_WINDOW_SECONDS, type StaticBest, type WindowOracle, type OracleWindow } from './window-oracle.js';
export { codeVersion, currentCodeVersion, simulatorCodeInputs } from './code-version.js';
export { OracleCache, oracleKey, ORACLE_FORMAT, type OracleKeyInput } from './cache.js';
export { computeOracles, cachedOracles, oracleCandidates, type OracleInput, type OracleOptions } from './oracle.js';
export type { OracleResult } from './oracle-result.js';
export { SuitePool } from './pool.js';
export { scenarioSource, scenarioCluster } from './snapshot-source.js';
export { runSuite, type SuiteOptions, type SuiteReport, type ScenarioReport, type PolicyRow } from './run-suite.js';
export { formatSuiteText, formatSuiteMarkdown } from './format.js';
export type { SnapshotSource, SuiteRunner } from './tasks.js';
export { QueueSuiteRunner } from './queue-runner.js';
export { suiteJobHandler } from './queue-worker.js';
