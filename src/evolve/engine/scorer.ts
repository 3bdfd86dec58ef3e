import type { Evaluation } from '../../evaluate/index.js';
import type { SnapshotScore } from '../../store/index.js';
import type { EvalOutcome, EvalTask } from '../pool/index.js';

/** An evaluation outcome; with several training snapshots, also the aggregate fitness and each snapshot's score. */
export type ScoredOutcome = EvalOutcome & { fitness?: number; snapshots?: SnapshotScore[] };

/** What the evolver evaluates candidates with: the pool itself (one snapshot) or a Scorer over several. */
export interface CandidateScorer {
  readonly threads: number;
  evaluate(task: EvalTask): Promise<ScoredOutcome>;
}

/** One snapshot of the pool as a term of a multi-snapshot fitness. */
export interface ScoredSnapshot {
  /** Index in the pool (see WorkerSetup.moreSnapshots). */
  index: number;
  label: string;
  /** The reference policy's T_total there. */
  reference: number;
}

/**
 * The fitness of a run with several training snapshots (scenarios, windows):
 * the mean over snapshots of T_total / the reference policy's T_total on the
 * same snapshot. Lower is better; 1 is the reference; 0.95 is 5 % below it on
 * average. Every snapshot weighs the same whatever its length. Each
 * (candidate, snapshot) is its own pool task, so snapshots of one candidate
 * run in parallel.
 */
export class Scorer implements CandidateScorer {
  constructor(
    private readonly pool: { readonly threads: number; evaluate(task: EvalTask): Promise<EvalOutcome> },
    readonly snapshots: readonly ScoredSnapshot[],
  ) {
    if (snapshots.length === 0) throw new RangeError('a scorer needs at least one snapshot');
  }

  get threads(): number {
    return this.pool.threads;
  }

  async evaluate(task: EvalTask): Promise<ScoredOutcome> {
    const outcomes = await Promise.all(this.snapshots.map((s) => this.pool.evaluate({ ...task, snapshot: s.index })));
    const wallMs = outcomes.reduce((sum, o) => sum + o.wallMs, 0);
    const bad = outcomes.find((o) => !o.ok);
    if (bad) return { ...bad, wallMs };
    const evaluations = outcomes.map((o) => (o as Extract<EvalOutcome, { ok: true }>).evaluation);
    const scores = evaluations.map((e, i) => scoreOf(e, this.snapshots[i]!));
    return { ok: true, evaluation: merge(evaluations), wallMs, fitness: mean(scores.map((s) => s.ratio)), snapshots: scores };
  }
}

export function scoreOf(e: Evaluation, s: ScoredSnapshot): SnapshotScore {
  return {
    label: s.label,
    tTotal: e.fitness.tTotal,
    ratio: e.fitness.tTotal / s.reference,
    throughput: e.metrics.throughput,
    failures: e.failures.reduce((n, f) => n + f.count, 0),
  };
}

export function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * One evaluation standing for all: the first snapshot's metrics and split,
 * every snapshot's failures, and the mean breakdown and behaviour features
 * (where the candidate sits in the archive is its behaviour over all of them).
 */
function merge(evaluations: readonly Evaluation[]): Evaluation {
  const first = evaluations[0]!;
  const avg = <T extends object>(pick: (e: Evaluation) => T): T => {
    const out: Record<string, number> = {};
    for (const key of Object.keys(pick(first))) out[key] = mean(evaluations.map((e) => Number((pick(e) as Record<string, number>)[key] ?? 0)));
    return out as T;
  };
  return {
    ...first,
    fitness: { tTotal: mean(evaluations.map((e) => e.fitness.tTotal)) },
    breakdown: avg((e) => e.breakdown),
    features: avg((e) => e.features),
    failures: evaluations.flatMap((e) => e.failures),
  };
}
