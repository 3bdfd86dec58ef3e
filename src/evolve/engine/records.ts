import type { Evaluation } from '../../evaluate/index.js';
import type { NewCandidate, CandidateRef } from '../../store/index.js';
import type { ScoredOutcome } from './scorer.js';

/** What the loop knows about one candidate before it is written. */
export interface Proposal {
  island: number;
  mutator: string;
  model: string | null;
  editSummary: string;
  code: string;
  codeHash: string;
  parents: CandidateRef[];
  inspirations: CandidateRef[];
  promptTokens: number | null;
  completionTokens: number | null;
}

/** A failed mutation: no code to evaluate. */
export function mutationFailureRecord(p: Omit<Proposal, 'code' | 'codeHash' | 'editSummary'>, reason: string, message: string): NewCandidate<CandidateRef> {
  return {
    island: p.island,
    mutator: p.mutator,
    model: p.model,
    editSummary: null,
    code: '',
    status: 'failed',
    failureKind: `mutation:${reason}`,
    failureMessage: message,
    parents: p.parents,
    inspirations: p.inspirations,
    promptTokens: p.promptTokens,
    completionTokens: p.completionTokens,
  };
}

/** Code already evaluated in this run: recorded, not evaluated again. */
export function duplicateRecord(p: Proposal): NewCandidate<CandidateRef> {
  return { ...base(p), status: 'rejected', failureKind: 'duplicate', failureMessage: 'the same code (whitespace normalised) was already evaluated in this run' };
}

/**
 * An evaluated candidate. Any policy failure during the replay (it threw,
 * timed out, returned an invalid plan...) marks it failed: the archive only
 * keeps policies that ran cleanly. Its fitness is still recorded.
 */
export function evaluatedRecord(p: Proposal, outcome: ScoredOutcome, cell: string | null): NewCandidate<CandidateRef> {
  if (!outcome.ok) return { ...base(p), status: 'failed', failureKind: outcome.kind, failureMessage: outcome.message };
  const e = outcome.evaluation;
  const failure = firstFailure(e);
  return {
    ...base(p),
    status: failure ? 'failed' : 'evaluated',
    failureKind: failure?.kind ?? null,
    failureMessage: failure ? `${failure.message} (x${failure.count})` : null,
    // Several training snapshots: the aggregate (mean ratio to the reference), else T_total itself.
    fitness: outcome.fitness ?? e.fitness.tTotal,
    snapshots: outcome.snapshots ?? null,
    breakdown: { ...e.breakdown },
    metrics: { ...e.metrics, finalSplit: e.finalSplit },
    features: { ...e.features },
    cell: failure ? null : cell,
  };
}

export function firstFailure(e: Evaluation): { kind: string; message: string; count: number } | undefined {
  const f = e.failures[0];
  return f ? { kind: f.kind, message: f.firstMessage, count: f.count } : undefined;
}

function base(p: Proposal): NewCandidate<CandidateRef> {
  return {
    island: p.island,
    mutator: p.mutator,
    model: p.model,
    editSummary: p.editSummary,
    code: p.code,
    codeHash: p.codeHash,
    status: 'evaluated',
    parents: p.parents,
    inspirations: p.inspirations,
    promptTokens: p.promptTokens,
    completionTokens: p.completionTokens,
  };
}
