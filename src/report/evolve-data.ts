import type { LineageStore } from '../store/index.js';
import type { ReportQueries } from './queries.js';

/**
 * What the report shows of an evolve run, read from the lineage (read-only):
 * the fitness curves per island, each island's archive, the best candidate's
 * lineage with code and diffs, failures by kind. The replays are added by
 * the caller (they need the run's snapshot).
 */
export interface IslandCurve {
  island: number;
  /** One point per iteration that evaluated something on the island (seeds: iteration 0). */
  points: { iteration: number; best: number; median: number; evaluated: number }[];
}

export interface ArchiveFeature {
  name: string;
  key: string;
  edges: number[];
}

export interface IslandArchive {
  island: number;
  features: ArchiveFeature[];
  elites: { id: number; cell: string; fitness: number }[];
}

export interface LineageNode {
  id: number;
  depth: number;
  iteration: number;
  island: number;
  mutator: string;
  status: string;
  fitness: number | null;
  editSummary: string | null;
  parents: number[];
  code: string;
  /** Unified diff against its first parent; null for a seed. */
  diff: string | null;
}

export interface EvolveData {
  islands: number;
  iterations: number;
  candidates: number;
  curves: IslandCurve[];
  best: { id: number; fitness: number } | null;
  bestSeed: { id: number; fitness: number; name: string } | null;
  archives: IslandArchive[];
  /** From the checkpoint (the archive as committed last); false when the run has none yet. */
  archiveFromCheckpoint: boolean;
  lineage: LineageNode[];
  failures: { kind: string; status: string; count: number }[];
}

/** Lineages deeper than this are cut (the nearest ancestors kept): a page of thousands of code blocks is no use. */
const MAX_LINEAGE = 200;

/** `diff`: a unified diff of two texts (the CLI's, so that the report shows what `show --diff` prints). */
export type DiffFn = (before: string, after: string, fromLabel: string, toLabel: string) => string;

export function evolveData(store: LineageStore, queries: ReportQueries, run: number, islandCount: number, diff: DiffFn): EvolveData {
  const points = queries.candidates(run);
  const curves = fitnessCurves(points, islandCount);
  const best = store.best(run, 1)[0];
  const stats = store.runCandidateStats(run);
  const seed = stats.seedsBest ? store.getCandidate(stats.seedsBest.id) : undefined;
  const checkpoint = store.loadCheckpoint(run);
  const archives = archivesFrom(checkpoint?.state, islandCount);
  return {
    islands: islandCount,
    iterations: points.reduce((n, p) => Math.max(n, p.iteration), 0),
    candidates: points.length,
    curves,
    best: best && best.fitness !== null ? { id: best.id, fitness: best.fitness } : null,
    bestSeed: stats.seedsBest && seed ? { ...stats.seedsBest, name: (seed.editSummary ?? `#${seed.id}`).replace(/^seed /, '') } : null,
    archives: archives ?? archivesFromCandidates(store, points, islandCount),
    archiveFromCheckpoint: archives !== null,
    lineage: best ? lineageOf(store, best.id, diff) : [],
    failures: queries.failures(run),
  };
}

/**
 * Per island and iteration: the best T_total so far (seeds count for every
 * island: each island starts from them) and the median of what that
 * iteration evaluated there.
 */
function fitnessCurves(points: ReturnType<ReportQueries['candidates']>, islandCount: number): IslandCurve[] {
  const seeds = points.filter((p) => p.iteration === 0 && p.fitness !== null && p.status === 'evaluated').map((p) => p.fitness!);
  return Array.from({ length: islandCount }, (_, island) => {
    const byIteration = new Map<number, number[]>();
    if (seeds.length > 0) byIteration.set(0, seeds);
    for (const p of points) {
      if (p.iteration === 0 || p.island !== island || p.status !== 'evaluated' || p.fitness === null) continue;
      const list = byIteration.get(p.iteration) ?? [];
      list.push(p.fitness);
      byIteration.set(p.iteration, list);
    }
    let bestSoFar = Infinity;
    const out: IslandCurve['points'] = [];
    for (const iteration of [...byIteration.keys()].sort((a, b) => a - b)) {
      const values = byIteration.get(iteration)!;
      bestSoFar = Math.min(bestSoFar, ...values);
      out.push({ iteration, best: bestSoFar, median: median(values), evaluated: values.length });
    }
    return { island, points: out };
  });
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The archives as the last checkpoint holds them (IslandSet.toJSON), or null if it has none or an unknown shape. */
function archivesFrom(state: unknown, islandCount: number): IslandArchive[] | null {
  const islands = (state as { islands?: { islands?: unknown } } | undefined)?.islands?.islands;
  if (!Array.isArray(islands)) return null;
  const out: IslandArchive[] = [];
  for (const [island, a] of islands.entries()) {
    const features = (a as { features?: { features?: unknown } }).features?.features;
    const elites = (a as { elites?: unknown }).elites;
    if (!Array.isArray(features) || !Array.isArray(elites)) return null;
    out.push({
      island,
      features: features.map((f: ArchiveFeature) => ({ name: String(f.name), key: String(f.key), edges: f.edges.map(Number) })),
      elites: elites.map((e: { id: number; cell: string; fitness: number }) => ({ id: Number(e.id), cell: String(e.cell), fitness: Number(e.fitness) })),
    });
  }
  return out.length === islandCount ? out : null;
}

/** No checkpoint (a run killed before its first commit): each island's best evaluated candidate per stored cell. */
function archivesFromCandidates(store: LineageStore, points: ReturnType<ReportQueries['candidates']>, islandCount: number): IslandArchive[] {
  const features = DEFAULT_FEATURES;
  return Array.from({ length: islandCount }, (_, island) => {
    const byCell = new Map<string, { id: number; cell: string; fitness: number }>();
    for (const p of points) {
      if (p.status !== 'evaluated' || p.fitness === null || (p.island !== island && p.iteration !== 0)) continue;
      const cell = store.getCandidate(p.id)?.cell;
      if (!cell) continue;
      const held = byCell.get(cell);
      if (!held || p.fitness < held.fitness) byCell.set(cell, { id: p.id, cell, fitness: p.fitness });
    }
    return { island, features, elites: [...byCell.values()] };
  });
}

/** The evaluator's default bins (src/evolve/archive/features.ts), for a run without a checkpoint to read them from. */
const DEFAULT_FEATURES: ArchiveFeature[] = [
  { name: 'rescheduleCount', key: 'r', edges: [0.5, 2.5, 6.5, 15.5, 40.5] },
  { name: 'schedCpuMsPerCall', key: 'c', edges: [0.03, 0.05, 0.2, 1, 5] },
  { name: 'nodesSwitchedPerReschedule', key: 's', edges: [0.01, 1.01, 2.01, 4.01] },
];

function lineageOf(store: LineageStore, id: number, diff: DiffFn): LineageNode[] {
  const entries = store.ancestry(id).slice(0, MAX_LINEAGE);
  const kept = new Set(entries.map((e) => e.candidate.id));
  const code = new Map<number, string>();
  const codeOf = (cid: number) => {
    if (!code.has(cid)) code.set(cid, store.getCandidate(cid)?.code ?? '');
    return code.get(cid)!;
  };
  return entries.map((e) => {
    const c = e.candidate;
    const first = e.parents[0];
    return {
      id: c.id,
      depth: e.depth,
      iteration: c.iteration,
      island: c.island,
      mutator: c.mutator,
      status: c.status,
      fitness: c.fitness,
      editSummary: c.editSummary,
      parents: e.parents.filter((p) => kept.has(p)),
      code: codeOf(c.id),
      diff: first === undefined ? null : diff(codeOf(first), codeOf(c.id), `#${first}`, `#${c.id}`),
    };
  });
}
