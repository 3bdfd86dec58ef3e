import type { SimResult } from '../sim/index.js';
import { series, type MinutePoint, type SplitPoint } from './replay.js';

/**
 * A serve run keeps its deployments, rollbacks and cycles in the lineage,
 * but not what was served minute by minute. The run is deterministic given
 * its saved settings and its deployment times (that is how `serve --resume`
 * re-serves the past), so the report serves it again (src/cli/report-serve.ts
 * drives the data plane) and reads the per-minute slices from that replay.
 */
export interface ServedSettings {
  workload: string;
  agents?: number;
  arrivalRate?: number;
  bursts?: unknown;
  membership: unknown[];
  nodes: number;
  nodeKinds: string;
  split: string;
  mechanics: string;
  seed: number;
  durationMinutes: number;
  policyName: string;
  policyCode: string;
  frozen: boolean;
  ringMinutes: number;
  rollbackAfter: number;
  cpuLimitMs: number;
  memoryLimitMb: number;
}

export interface ServeReplay {
  minutes: MinutePoint[];
  splits: SplitPoint[];
  /** Simulated minutes served in the replay. */
  servedMinutes: number;
  /** Deploys and rollbacks the replay saw, to check it against the lineage. */
  events: { type: 'deploy' | 'rollback' | 'reject'; minute: number; candidateId: number | null }[];
}

/** The report's view of a re-served run: its simulator result and the slot events it saw. */
export function serveReplay(sim: Pick<SimResult, 'slices' | 'splitTimeline' | 'finalSplit' | 'simSeconds'>, events: readonly { type: string; at: number; candidateId?: number | null }[]): ServeReplay {
  const kept = events.filter((e): e is { type: 'deploy' | 'rollback' | 'reject'; at: number; candidateId?: number | null } => e.type === 'deploy' || e.type === 'rollback' || e.type === 'reject');
  return { ...series(sim), servedMinutes: sim.simSeconds / 60, events: kept.map((e) => ({ type: e.type, minute: e.at / 60, candidateId: e.candidateId ?? null })) };
}
