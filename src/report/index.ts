/**
 * The HTML report (`autopoiesis report`): one self-contained page of what an
 * evolve or serve run did, or of a suite result, drawn with echarts. Reads
 * the lineage read-only; replays what the lineage does not keep.
 */
export { renderPage } from './html.js';
export { ReportQueries } from './queries.js';
export { evolveSection, type EvolveSection, type EvolveRunSettings, type ReplayFn } from './evolve-report.js';
export { serveData, type ServeData } from './serve-data.js';
export { serveReplay, type ServedSettings, type ServeReplay } from './serve-replay.js';
export { readSuiteFile, SuiteFileSchema, type SuiteData } from './suite-data.js';
export { policyReplay, series, type PolicyReplay } from './replay.js';
