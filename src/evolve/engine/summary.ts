import type { LineageStore } from '../../store/index.js';
import type { IslandSet } from '../archive/index.js';
import type { TrajectoryCounts } from '../pool/index.js';
import { summarizeValidation, type ValidationSummary } from './validation.js';

/** What `evolve --json` prints. */
export interface EvolveSummary {
  run: number;
  iterations: number;
  evaluated: number;
  failedByKind: Record<string, number>;
  /** What fitness is: T_total in seconds (one training snapshot) or the mean ratio of T_total to the reference's (several). */
  fitnessUnit: 'seconds' | 'ratio';
  /** The best on training (lowest fitness). */
  best: { id: number; fitness: number; breakdown: Record<string, number> | null } | null;
  seedsBest: { id: number; fitness: number } | null;
  /** How much lower the best fitness is than the best seed's, in percent. */
  improvementPct: number | null;
  /** With validation snapshots: the run's best is the best on validation. */
  validation?: ValidationSummary;
  /** How the elites spread over the behaviour space at the end. */
  archive: ArchiveSpread;
  /** This process's evaluations (a resumed run counts from the resume): how many reused a kept trajectory, their parent's or another's (docs/evolution.md). */
  trajectories?: TrajectoryCounts;
}

export interface ArchiveSpread {
  /** Distinct feature cells held by an elite on any island. */
  occupiedCells: number;
  /** Cells held on each island. */
  perIsland: number[];
}

export function archiveSpread(islands: IslandSet): ArchiveSpread {
  const cells = new Set<string>();
  const perIsland = islands.all().map((a) => {
    const elites = a.elites();
    for (const e of elites) cells.add(e.cell);
    return elites.length;
  });
  return { occupiedCells: cells.size, perIsland };
}

export function summarizeRun(store: LineageStore, runId: number, lastIteration: number, islands: IslandSet, how: { validated: boolean; normalised: boolean }): EvolveSummary {
  const rows = store.runCandidateStats(runId);
  const best = store.best(runId, 1)[0];
  const seedsBest = rows.seedsBest;
  return {
    run: runId,
    iterations: lastIteration,
    fitnessUnit: how.normalised ? 'ratio' : 'seconds',
    evaluated: rows.evaluated,
    failedByKind: rows.failedByKind,
    best: best && best.fitness !== null ? { id: best.id, fitness: best.fitness, breakdown: best.breakdown } : null,
    seedsBest,
    improvementPct: best && best.fitness !== null && seedsBest ? ((seedsBest.fitness - best.fitness) / seedsBest.fitness) * 100 : null,
    ...(how.validated ? { validation: summarizeValidation(store, runId) } : {}),
    archive: archiveSpread(islands),
  };
}
