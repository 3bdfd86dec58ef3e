import { z } from 'zod';
import { MAX_BLOCK_ID, MAX_REQUEST_TOKENS } from './blocks.js';

/**
 * One line of a trace file (JSONL). The first line is the header; every
 * other line is an event. Times are seconds from the start of the trace.
 * Block lists hold ids or [first id, count] ranges of consecutive ids.
 */

export const TRACE_FORMAT = 'autopoiesis-trace';
export const TRACE_VERSION = 1;

const id = z.number().int().nonnegative();
const time = z.number().nonnegative().finite();
const blockId = id.max(MAX_BLOCK_ID);
const blockRange = z
  .tuple([blockId, z.number().int().positive()])
  .refine(([first, count]) => first + count - 1 <= MAX_BLOCK_ID, { message: `the range runs past the largest block id ${MAX_BLOCK_ID}` });
const blockList = z.array(z.union([blockId, blockRange]));
const tokens = id.max(MAX_REQUEST_TOKENS);

export const traceHeaderSchema = z.looseObject({
  type: z.literal('header'),
  format: z.literal(TRACE_FORMAT),
  version: z.literal(TRACE_VERSION),
  /** Model profile the trace runs on, e.g. glm-5.2. */
  model: z.string().min(1),
  /** Where it came from: a preset name, an imported file. */
  source: z.string().min(1),
});

export const agentLineSchema = z.strictObject({
  type: z.literal('agent'),
  agent: id,
  /** The agent's root branch. */
  branch: id,
  kind: z.string().optional(),
  /**
   * Closed loop: the agent whose end started this one. Replay starts this
   * agent when that one ends, so the number of agents stays fixed.
   */
  replaces: id.optional(),
  t: time,
});

export const branchLineSchema = z.strictObject({
  type: z.enum(['fork', 'subagent']),
  branch: id,
  parent: id,
  agent: id,
  t: time,
});

export const requestLineSchema = z.strictObject({
  type: z.literal('request'),
  id,
  /** Absent in traces without harness signals. */
  agent: id.optional(),
  branch: id.optional(),
  version: id.default(0),
  /** Nominal arrival time; used for release only when `after` is empty. */
  t: time,
  /** Requests that must complete before this one is released. */
  after: z.array(id).default([]),
  /** Seconds after the last of `after` completes (tool time). */
  wait: time.default(0),
  /**
   * A burst-held call (workload/bursts.ts): released `wait` seconds after the
   * first multiple of `sync` seconds at or after the last of `after`
   * completes, so bursts stay aligned to the replay's own clock.
   */
  sync: z.number().positive().finite().optional(),
  input: tokens,
  output: tokens.positive(),
  blocks: blockList.default([]),
  produced: blockList.default([]),
  /**
   * Set by an importer when `agent`/`branch`/`version` were inferred from the
   * blocks rather than recorded (importers/infer-signals.ts): how this
   * request was placed. Absent on recorded traces.
   */
  inferred: z.enum(['continuation', 'compaction', 'branch']).optional(),
});

export const compactLineSchema = z.strictObject({
  type: z.literal('compact'),
  branch: id,
  /** The branch's version from now on. */
  version: z.number().int().positive(),
  t: time,
});

export const endLineSchema = z.strictObject({
  type: z.literal('end'),
  branch: id,
  /** The branch's last request: the branch ends when it completes. */
  after: id,
  t: time,
});

export const traceLineSchemas = {
  agent: agentLineSchema,
  fork: branchLineSchema,
  subagent: branchLineSchema,
  request: requestLineSchema,
  compact: compactLineSchema,
  end: endLineSchema,
} as const;

export type TraceHeader = z.output<typeof traceHeaderSchema>;
export type AgentLine = z.output<typeof agentLineSchema>;
export type BranchLine = z.output<typeof branchLineSchema>;
export type RequestLine = z.output<typeof requestLineSchema>;
export type CompactLine = z.output<typeof compactLineSchema>;
export type EndLine = z.output<typeof endLineSchema>;
export type TraceEvent = AgentLine | BranchLine | RequestLine | CompactLine | EndLine;

export interface Trace {
  header: TraceHeader;
  /** In file order; a line only refers to what earlier lines defined. */
  events: TraceEvent[];
}
