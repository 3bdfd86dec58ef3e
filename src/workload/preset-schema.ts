import { z } from 'zod';
import { burstSchema, type BurstSpec } from './bursts.js';
import { distSchema } from './dist.js';

/**
 * The contract of a workload preset file (evaluator/workloads/<name>.json).
 * All token counts are tokens, all times seconds. Values are first guesses
 * from the published workload facts (see design/CALIBRATION.md), to be fitted.
 */

const probability = z.number().min(0).max(1);

const subagentSchema = z.strictObject({
  /** Chance, after each call of a root branch, that it launches sub-agents and waits for them. */
  probability,
  /** Sub-agents launched at once (the parent resumes when all have finished). */
  count: distSchema,
  /** Task prompt written by the parent, after the shared system prompt. */
  promptTokens: distSchema,
  calls: distSchema,
  /** Tokens of the sub-agent's result appended to the parent's context. */
  resultTokens: distSchema,
});

const forkSchema = z.strictObject({
  /** Chance, after each call of a root or sub-agent branch, that it forks a side branch. */
  probability,
  /** Extra instructions the fork appends to the shared context. */
  promptTokens: distSchema,
  calls: distSchema,
});

const compactionSchema = z.strictObject({
  /** Context size (tokens, sampled per branch version) at which the harness compacts. */
  atTokens: distSchema,
  /** Output of the compaction call: the summary. */
  summaryTokens: distSchema,
  /** Context after compaction beyond the system prompt (summary, re-read files). */
  keptTokens: distSchema,
});

const observationWindowSchema = z.strictObject({
  /**
   * Tool results (observations) kept in full: computer-use harnesses keep
   * only the last few screenshots. When a new one arrives and more than
   * `keep` are in the context, the oldest kept one is replaced by a short
   * placeholder; everything after it in the context changes, so its KV must
   * be computed again (fresh block ids from that point on).
   */
  keep: z.number().int().min(1),
  /** Tokens of the placeholder left in place of a dropped observation. */
  placeholderTokens: z.number().int().min(0).default(0),
});

export const agentKindSchema = z.strictObject({
  description: z.string().optional(),
  /** Shared by every agent of this kind and by their sub-agents (same block ids). */
  systemPromptTokens: distSchema,
  /** Shared by the agents of one task (computer-use: instruction and first screenshot). */
  taskPrefixTokens: distSchema.optional(),
  agentsPerTask: z.number().int().min(1).default(1),
  /** The agent's own first prompt (user request, repository context). */
  agentPromptTokens: distSchema,
  outputTokens: distSchema,
  /** Appended after every call: tool output, or a screenshot for computer use. */
  toolResultTokens: distSchema,
  /** Tool time between a call's completion and the branch's next call. */
  pauseSeconds: distSchema,
  /** Calls of an agent's root branch. */
  calls: distSchema,
  /**
   * Time from an agent's start to its first call (environment setup, e.g. a
   * computer-use VM restored from its snapshot); the agent holds its place
   * in the closed loop meanwhile. Absent: the first call comes at once.
   */
  setupSeconds: distSchema.optional(),
  subagents: subagentSchema.optional(),
  forks: forkSchema.optional(),
  compaction: compactionSchema.optional(),
  /**
   * Reasoning models whose chat template drops earlier turns' thinking: only
   * this share of each output (the final answer) stays in the history. The
   * next prompt then diverges from the blocks the output filled right after
   * the prompt, so the kept answer is prompt tokens to compute again. Absent:
   * the whole output stays in the context.
   */
  thinking: z.strictObject({ keptFraction: z.number().min(0).max(1) }).optional(),
  /** Keep only the last few tool results in full (computer use); absent: every result stays. */
  observationWindow: observationWindowSchema.optional(),
});

/** A kind defined in another preset file, e.g. `{"from": "putnam"}`. */
export const kindRefSchema = z.strictObject({
  from: z.string().min(1),
  /** Kind name inside that preset; defaults to its only kind. */
  kind: z.string().min(1).optional(),
});

const mixSchema = z.record(z.string(), z.number().nonnegative().finite());

const loopSchema = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('closed'),
    /** Agents running at once; a finished agent is replaced at once. */
    agents: z.number().int().min(1),
    /** The first agents start spread uniformly over this many seconds. */
    rampSeconds: z.number().nonnegative().finite().default(0),
  }),
  z.strictObject({
    mode: z.literal('open'),
    /** Poisson arrivals of new agents. */
    agentsPerSecond: z.number().positive().finite(),
  }),
]);

const phaseSchema = z.strictObject({
  /** Simulated time at which the phase begins; the first phase starts at 0. */
  startSeconds: z.number().nonnegative().finite(),
  /** Relative weights of the kinds a new agent is drawn from. */
  mix: mixSchema,
});

export const presetFileSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  model: z.string().min(1),
  loop: loopSchema,
  /** Each value is an agent kind or a kindRef; checked one by one so errors name the right schema. */
  kinds: z.record(z.string(), z.record(z.string(), z.unknown())).refine((k) => Object.keys(k).length > 0, 'at least one kind'),
  /** Kind weights when there is more than one kind and no phases. */
  mix: mixSchema.optional(),
  phases: z.array(phaseSchema).min(1).optional(),
  /** Synchronised sub-agent bursts (bursts.ts); absent: off. */
  bursts: burstSchema.optional(),
  /**
   * Field path (e.g. `kinds.cc.pauseSeconds`) -> why the value is what it
   * is: the published fact it reproduces, or that it is an assumption fitted
   * to the calibration (design/CALIBRATION.md). JSON has no comments.
   */
  notes: z.record(z.string(), z.string()).optional(),
});

export type AgentKind = z.output<typeof agentKindSchema>;
export type PresetFile = z.output<typeof presetFileSchema>;
export type LoopSpec = z.output<typeof loopSchema>;
export type Phase = z.output<typeof phaseSchema>;

/** A loaded preset: kind references resolved, mixes checked. */
export interface WorkloadPreset {
  name: string;
  description?: string;
  model: string;
  loop: LoopSpec;
  kinds: Record<string, AgentKind>;
  /** Always at least one phase; a single-kind preset has one phase of weight 1. */
  phases: Phase[];
  /** Synchronised sub-agent bursts; undefined: off. */
  bursts?: BurstSpec;
  /** Where it was loaded from. */
  file: string;
}
