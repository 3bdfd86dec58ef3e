import type { Rng } from '../../common/rng.js';

/** A candidate as the mutator sees it: its code and, once evaluated, its scores. */
export interface ScoredPolicy {
  id: number;
  code: string;
  /** T_total in seconds (lower is better); null when it was not scored. */
  fitness: number | null;
  /** The evaluator's cost breakdown (design section 6), shown to the LLM as is. */
  breakdown?: unknown;
}

export interface MutationInput {
  parent: { id: number; code: string; breakdown?: unknown; metrics?: unknown; fitness?: number | null };
  /** The parent's earlier children: what was already tried from here and how it went. */
  children: { id: number; editSummary: string; fitness: number | null; breakdown?: unknown; failure?: string }[];
  /** Other elites, for recombination (structural swap) or as examples (llm). */
  inspirations: ScoredPolicy[];
  best: ScoredPolicy | null;
  /** Edit summaries of recent successful candidates. */
  recentStrategies: string[];
  /** Seeded per candidate by the caller: every random choice of a mutation draws from it. */
  rng: Rng;
}

export interface MutationOutput {
  code: string;
  /** One line (several edits joined with '; ') kept with the candidate in the lineage. */
  editSummary: string;
  model: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Which mutator made it; tells the parts of a mix apart in the lineage. */
  mutator?: string;
}

export interface Mutator {
  readonly name: string;
  /** Rejects with MutationFailed; anything else is a bug. */
  mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput>;
  /** Release what it holds (a worker thread); absent when it holds nothing. */
  close?(): Promise<void>;
}
