import type { Snapshot } from '../evaluate/index.js';
import type { LineageStore, RunRecord } from '../store/index.js';
import { evolveData, type DiffFn, type EvolveData } from './evolve-data.js';
import type { ReportQueries } from './queries.js';
import type { PolicyReplay } from './replay.js';

export interface EvolveSection extends EvolveData {
  run: { id: number; db: string; status: string; summary: string; snapshot: string; fitnessUnit: string; trainedSnapshots: number };
  replays: PolicyReplay[];
  /** Why the replays are missing, when they are. */
  replayNote: string | null;
}

/** Replays a candidate's code on the run's snapshot (the CLI's, with the run's sandbox limits and sched cost). */
export type ReplayFn = (snapshot: Snapshot, policy: { label: string; candidate: number; code: string }) => PolicyReplay;

export interface EvolveRunSettings {
  islands: number;
  /** One line on the run's settings, shown under the title. */
  summary: string;
  /** What a fitness is: `T_total (s)`, or a ratio to the reference policy for a run on several snapshots. */
  fitnessUnit: string;
  /** Training snapshots of the run (the replays are on the first). */
  trainedSnapshots: number;
}

/**
 * The evolve section: the lineage's view of the run, and the best
 * candidate and the best seed replayed on the run's snapshot (null when it
 * could not be rebuilt; `snapshotNote` says why).
 */
export function evolveSection(
  store: LineageStore,
  queries: ReportQueries,
  db: string,
  run: RunRecord,
  settings: EvolveRunSettings,
  snapshot: Snapshot | null,
  snapshotNote: string | null,
  diff: DiffFn,
  replay: ReplayFn,
): EvolveSection {
  const data = evolveData(store, queries, run.id, settings.islands, diff);
  const replays: PolicyReplay[] = [];
  if (snapshot) {
    const picks: { label: string; id: number }[] = [];
    if (data.best) picks.push({ label: `best #${data.best.id}`, id: data.best.id });
    if (data.bestSeed && data.bestSeed.id !== data.best?.id) picks.push({ label: `best seed ${data.bestSeed.name} #${data.bestSeed.id}`, id: data.bestSeed.id });
    else if (data.bestSeed) picks[0]!.label = `best #${data.bestSeed.id} (the best seed, ${data.bestSeed.name})`;
    for (const p of picks) {
      const code = store.getCandidate(p.id)?.code ?? '';
      replays.push(replay(snapshot, { label: p.label, candidate: p.id, code }));
    }
  }
  return {
    ...data,
    run: { id: run.id, db, status: run.status, summary: settings.summary, snapshot: snapshot?.label ?? '-', fitnessUnit: settings.fitnessUnit, trainedSnapshots: settings.trainedSnapshots },
    replays,
    replayNote: snapshot ? null : snapshotNote,
  };
}
