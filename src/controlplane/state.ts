import { z } from 'zod';
import { IslandSet } from '../evolve/archive/index.js';
import { topElites } from '../evolve/engine/index.js';
import type { LineageStore } from '../store/index.js';

/**
 * What the control plane keeps in the run's state (run_state) so that a
 * restarted `serve --resume` continues where it was:
 * - `islands` and `cycle`: the population of the cycle in progress, written
 *   with each of its iterations (the evolution checkpoint);
 * - `warmStart`: the elites the next cycle starts from, written when a cycle
 *   ends;
 * - `simSeconds`: the simulated time the data plane had reached.
 */
export const WARM_START_KEY = 'warmStart';
export const SIM_SECONDS_KEY = 'simSeconds';

/** A previous cycle's elite: re-scored on the next cycle's snapshot as a starter. */
export interface WarmElite {
  id: number;
  /** T_total on the snapshot of the cycle it was scored in (not comparable across cycles). */
  fitness: number;
  cycle: number | null;
}

const WarmElitesSchema = z.array(z.strictObject({ id: z.number().int().positive(), fitness: z.number(), cycle: z.number().int().nullable() }));

export interface ControlState {
  /** The run's next iteration number (iterations are numbered across cycles). */
  nextIteration: number;
  warmStart: WarmElite[];
}

/** The state of a run, from its checkpoint and run_state (an empty run: iteration 0, no warm start). */
export function loadControlState(store: LineageStore, runId: number, warmStartCount: number): ControlState {
  const checkpoint = store.loadCheckpoint(runId);
  const saved = store.loadRunState(runId);
  const parsed = WarmElitesSchema.safeParse(saved[WARM_START_KEY] ?? []);
  let warmStart: WarmElite[] = parsed.success ? parsed.data : [];
  // A cycle killed before it ended left its population in the checkpoint but
  // never wrote its warm start: its elites (scored on the newest snapshot) win.
  const islands = checkpoint?.state.islands;
  const cycle = checkpoint?.state.cycle;
  if (islands) {
    try {
      const fromCheckpoint = elitesOf(IslandSet.restore(islands), warmStartCount, typeof cycle === 'number' ? cycle : null);
      if (fromCheckpoint.length > 0) warmStart = fromCheckpoint;
    } catch {
      // an unreadable checkpoint population: keep the saved warm start
    }
  }
  return { nextIteration: checkpoint ? checkpoint.iteration + 1 : 0, warmStart };
}

export function elitesOf(islands: IslandSet, n: number, cycle: number | null): WarmElite[] {
  return topElites(islands, n).map((e) => ({ id: Number(e.id), fitness: e.fitness, cycle }));
}

export function saveWarmStart(store: LineageStore, runId: number, elites: readonly WarmElite[]): void {
  store.saveRunState(runId, { [WARM_START_KEY]: elites.map((e) => ({ ...e })) });
}

export function saveSimSeconds(store: LineageStore, runId: number, simSeconds: number): void {
  if (Number.isFinite(simSeconds)) store.saveRunState(runId, { [SIM_SECONDS_KEY]: simSeconds });
}

/** The latest simulated time the lineage knows of: saved, or the latest cycle or deployment event. */
export function simSecondsReached(store: LineageStore, runId: number): number {
  const saved = store.loadRunState(runId)[SIM_SECONDS_KEY];
  let t = typeof saved === 'number' ? saved : 0;
  for (const c of store.listCycles(runId)) t = Math.max(t, c.startedAt, c.endedAt ?? 0);
  for (const d of store.listDeployments(runId)) t = Math.max(t, d.deployedAt, d.rolledBackAt ?? 0);
  return t;
}
