/** The workload layer's public API: presets, the harness source, traces. */
export type { SimRequest, WorkloadEvent, WorkloadSource } from './types.js';
export { BLOCK_TOKENS, encodeBlocks, expandBlocks, countBlocks, type EncodedBlocks } from './blocks.js';
export type { Dist } from './dist.js';
export { burstSchema, nextBurstAt, type BurstSpec, type BurstSpecInput } from './bursts.js';
export type { AgentKind, WorkloadPreset } from './preset-schema.js';
export { loadWorkloadPreset, listWorkloadPresets } from './presets.js';
export { createPresetSource, type PresetSourceOptions } from './preset-source.js';
export { MEASURED_AGENT_OUTPUT_CV, withOutputCv } from './output-spread.js';
export type { HarnessObserver } from './harness.js';
export { runNominal, nominalServiceSeconds, type NominalRunHooks } from './nominal.js';
export type { Trace, TraceEvent, TraceHeader, RequestLine } from './trace-schema.js';
export { parseTrace, formatTrace, readTrace, writeTrace } from './trace-io.js';
export { validateTrace } from './trace-check.js';
export { generateTrace, type GenerateTraceOptions } from './trace-gen.js';
export { createTraceSource, type TraceSourceOptions } from './trace-source.js';
export { traceStats, type TraceStats } from './trace-stats.js';
export {
  importTrace,
  importMooncake,
  importAzure,
  inferSignals,
  IMPORT_FORMATS,
  INFER_DEFAULTS,
  DEFAULT_IMPORT_MODEL,
  type ImportFormat,
  type ImportOptions,
  type ImportTraceOptions,
  type InferOptions,
} from './importers/index.js';
