import type { LineageStore, NewValidation, ValidationRecord } from '../../store/index.js';
import type { EvalOutcome, EvalTask } from '../pool/index.js';
import { firstFailure } from './records.js';
import { mean, scoreOf, type ScoredSnapshot } from './scorer.js';

/** What `evolve --json` adds with validation snapshots. */
export interface ValidationSummary {
  /** The run's best: the lowest validation fitness of any validated candidate. */
  best: { id: number; fitness: number } | null;
  /** The best seed on validation. */
  seedsBest: { id: number; fitness: number } | null;
  /** How much lower the best's validation fitness is than the best seed's, in percent. */
  improvementPct: number | null;
  /** Candidates validated in the run. */
  validated: number;
}

/**
 * Scores candidates on the validation snapshots (other realisations of the
 * training snapshots, never trained on), normalised like a multi-snapshot
 * training fitness: the mean of T_total / the reference's T_total on each.
 * It never feeds back into the search; it only picks the run's best, so a
 * run with validation explores exactly as one without.
 */
export class Validator {
  constructor(
    private readonly pool: { evaluate(task: EvalTask): Promise<EvalOutcome> },
    readonly snapshots: readonly ScoredSnapshot[],
  ) {}

  async score(candidate: { id: number; code: string }): Promise<NewValidation> {
    const outcomes = await Promise.all(this.snapshots.map((s) => this.pool.evaluate({ candidateId: candidate.id, name: `validate #${candidate.id}`, code: candidate.code, snapshot: s.index })));
    const scores = [];
    for (let i = 0; i < outcomes.length; i++) {
      const o = outcomes[i]!;
      if (!o.ok) return { candidate: candidate.id, fitness: null, failure: `${o.kind}: ${o.message}`, snapshots: scores };
      scores.push(scoreOf(o.evaluation, this.snapshots[i]!));
      const failure = firstFailure(o.evaluation);
      if (failure) return { candidate: candidate.id, fitness: null, failure: `${failure.kind}: ${failure.message} on ${this.snapshots[i]!.label}`, snapshots: scores };
    }
    return { candidate: candidate.id, fitness: mean(scores.map((s) => s.ratio)), snapshots: scores };
  }

  /** Validate the candidates not validated yet, and record them after `iteration`. */
  async validate(store: LineageStore, runId: number, iteration: number, ids: readonly number[]): Promise<number> {
    const todo = [...new Set(ids)].filter((id) => !store.getValidation(id));
    if (todo.length === 0) return 0;
    const rows = await Promise.all(todo.map((id) => this.score({ id, code: store.getCandidate(id)!.code })));
    store.saveValidations(runId, iteration, rows);
    return rows.length;
  }
}

export function summarizeValidation(store: LineageStore, runId: number): ValidationSummary {
  const rows = store.listValidations(runId).filter((r): r is ValidationRecord & { fitness: number } => r.fitness !== null);
  const best = rows[0];
  const seed = rows.find((r) => store.getCandidate(r.candidate)?.mutator === 'seed');
  return {
    best: best ? { id: best.candidate, fitness: best.fitness } : null,
    seedsBest: seed ? { id: seed.candidate, fitness: seed.fitness } : null,
    improvementPct: best && seed ? ((seed.fitness - best.fitness) / seed.fitness) * 100 : null,
    validated: store.listValidations(runId).length,
  };
}
