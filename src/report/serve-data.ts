import type { LineageStore, RunRecord } from '../store/index.js';
import type { ServedSettings, ServeReplay } from './serve-replay.js';

/** What the report shows of one serve run: its deployments, rollbacks and cycles (lineage) and what was served per minute (replay). */
export interface ServeData {
  run: number;
  db: string;
  frozen: boolean;
  status: string;
  workload: string;
  deployments: { id: number; candidate: number; minute: number; rolledBackMinute: number | null; reason: string | null; rollbackReason: string | null; fitness: number | null }[];
  cycles: { id: number; status: string; startMinute: number; endMinute: number | null; bestFitness: number | null; deployedFitness: number | null; winner: number | null }[];
  replay: ServeReplay;
  /** Whether the replay deployed and rolled back what the lineage says, and when; a note when not. */
  replayNote: string | null;
}

/** `replay`: the run served again from its settings and recorded deployments. */
export function serveData(store: LineageStore, db: string, run: RunRecord, settings: ServedSettings, replay: ServeReplay): ServeData {
  const deployments = store.listDeployments(run.id);
  const cycles = store.listCycles(run.id);
  return {
    run: run.id,
    db,
    frozen: settings.frozen,
    status: run.status,
    workload: settings.workload,
    deployments: deployments.map((d) => ({
      id: d.id,
      candidate: d.candidate,
      minute: d.deployedAt / 60,
      rolledBackMinute: d.rolledBackAt === null ? null : d.rolledBackAt / 60,
      reason: d.reason,
      rollbackReason: d.rollbackReason,
      fitness: d.fitnessOnSnapshot,
    })),
    cycles: cycles.map((c) => ({
      id: c.id,
      status: c.status,
      startMinute: c.startedAt / 60,
      endMinute: c.endedAt === null ? null : c.endedAt / 60,
      bestFitness: c.bestFitness,
      deployedFitness: c.deployedFitness,
      winner: c.winner,
    })),
    replay,
    replayNote: compareEvents(deployments, replay),
  };
}

function compareEvents(recorded: ReturnType<LineageStore['listDeployments']>, replay: ServeReplay): string | null {
  const deploys = replay.events.filter((e) => e.type === 'deploy');
  const rollbacks = replay.events.filter((e) => e.type === 'rollback').length;
  const recordedRollbacks = recorded.filter((d) => d.rolledBackAt !== null).length;
  const swaps = recorded.length - 1;
  if (deploys.length === Math.max(0, swaps) && rollbacks === recordedRollbacks) return null;
  return `the replay saw ${deploys.length} deployment(s) and ${rollbacks} rollback(s); the lineage records ${Math.max(0, swaps)} and ${recordedRollbacks}: the per-minute curves are the replay's`;
}
