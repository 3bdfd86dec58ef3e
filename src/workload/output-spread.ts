import { UsageError } from '../common/errors.js';
import type { AgentKind } from './preset-schema.js';

/**
 * Per-call output lengths of reasoning agents are log-normal with a heavy
 * right tail. Measured on real coding-agent traffic: TraceLab (Zhu et al.,
 * "TraceLab: Characterizing Coding Agent Workloads for LLM Serving", 2026,
 * https://tracelab.cs.washington.edu/exp/llm_generation/token_length_distribution/),
 * 216,823 Codex agent steps whose output counts the reasoning tokens: mean
 * 415, P25 70, P50 184, P90 939, P99 3,508 tokens. A log-normal fits all of
 * them: sigma = ln(P90/P50)/1.2816 = 1.27 and sqrt(2 ln(mean/P50)) = 1.28,
 * which predict P99 = 3,550 and mean = 413; sigma 1.27 is a coefficient of
 * variation of sqrt(exp(sigma^2) - 1) = 2.0, P95/mean = 3.6. (The 140,338
 * Claude steps, output without hidden reasoning, give sigma 1.42-1.48, cv 2.5.)
 * The public chat traces are much narrower (Mooncake conversation output cv
 * 0.73, Azure conversation 0.77, both capped at 1-2K tokens): they are not
 * agent steps.
 */
export const MEASURED_AGENT_OUTPUT_CV = 2.0;

/** The kinds with every `outputTokens` coefficient of variation set to `cv` (undefined: unchanged). */
export function withOutputCv(kinds: Record<string, AgentKind>, cv: number | undefined): Record<string, AgentKind> {
  if (cv === undefined) return kinds;
  if (!(cv >= 0) || !Number.isFinite(cv)) throw new UsageError(`outputCv must be a number >= 0, got ${cv}`);
  const out: Record<string, AgentKind> = {};
  for (const [name, kind] of Object.entries(kinds)) out[name] = { ...kind, outputTokens: { ...kind.outputTokens, cv } };
  return out;
}
