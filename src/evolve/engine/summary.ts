import type { LineageStore } from '../../store/index.js';

/** What `evolve --json` prints. */
export interface EvolveSummary {
  run: number;
  iterations: number;
  evaluated: number;
  failedByKind: Record<string, number>;
  best: { id: number; fitness: number; breakdown: Record<string, number> | null } | null;
  seedsBest: { id: number; fitness: number } | null;
  /** How much lower the best T_total is than the best seed's, in percent. */
  improvementPct: number | null;
}

export function summarizeRun(store: LineageStore, runId: number, lastIteration: number): EvolveSummary {
  const rows = store.runCandidateStats(runId);
  const best = store.best(runId, 1)[0];
  const seedsBest = rows.seedsBest;
  return {
    run: runId,
    iterations: lastIteration,
    evaluated: rows.evaluated,
    failedByKind: rows.failedByKind,
    best: best && best.fitness !== null ? { id: best.id, fitness: best.fitness, breakdown: best.breakdown } : null,
    seedsBest,
    improvementPct: best && best.fitness !== null && seedsBest ? ((seedsBest.fitness - best.fitness) / seedsBest.fitness) * 100 : null,
  };
}
