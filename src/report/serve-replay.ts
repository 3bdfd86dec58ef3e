import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataPlane, stagePolicy, type SlotEvent } from '../dataplane/index.js';
import { parseMechanics, parseScenario } from '../sim/index.js';
import type { DeploymentRecord, LineageStore } from '../store/index.js';
import { series, type MinutePoint, type SplitPoint } from './replay.js';

/**
 * A serve run keeps its deployments, rollbacks and cycles in the lineage,
 * but not what was served minute by minute. The run is deterministic given
 * its saved settings and its deployment times (that is how `serve --resume`
 * re-serves the past), so the report serves it again, unpaced, staging each
 * recorded deployment just before the monitoring step it happened at, and
 * reads the per-minute slices from that replay.
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

export function replayServeRun(store: LineageStore, settings: ServedSettings, deployments: readonly DeploymentRecord[], untilSeconds: number): ServeReplay {
  const scenario = parseScenario({
    workload: settings.workload,
    agents: settings.agents,
    arrivalRate: settings.arrivalRate,
    bursts: settings.bursts,
    membership: settings.membership,
    nodes: settings.nodes,
    nodeKinds: settings.nodeKinds,
    split: settings.split,
    mechanics: parseMechanics(settings.mechanics),
    warmupMinutes: 0,
    minutes: settings.durationMinutes,
    seed: settings.seed,
  });
  const first = deployments[0];
  const startCode = (first && store.getCandidate(first.candidate)?.code) || settings.policyCode;
  const staging = mkdtempSync(join(tmpdir(), 'autopoiesis-report-'));
  const events: ServeReplay['events'] = [];
  const onEvent = (e: SlotEvent) => {
    if (e.type === 'deploy' || e.type === 'rollback' || e.type === 'reject') {
      events.push({ type: e.type, minute: e.at / 60, candidateId: 'candidateId' in e ? (e.candidateId ?? null) : null });
    }
  };
  const dataPlane = new DataPlane(
    scenario,
    { name: settings.policyName, code: startCode, candidateId: first?.candidate ?? null },
    {
      stagingDir: settings.frozen ? undefined : staging,
      frozen: settings.frozen,
      ringMinutes: settings.ringMinutes,
      rollbackAfter: settings.rollbackAfter,
      sandbox: { cpuLimitMs: settings.cpuLimitMs, memoryLimitMb: settings.memoryLimitMb },
      onEvent,
    },
  );
  try {
    const pending = deployments.slice(1).sort((a, b) => a.deployedAt - b.deployedAt);
    while (!dataPlane.done && dataPlane.nextStepAt <= untilSeconds) {
      while (pending.length > 0 && pending[0]!.deployedAt <= dataPlane.nextStepAt) {
        const d = pending.shift()!;
        const code = store.getCandidate(d.candidate)?.code;
        if (code) stagePolicy(staging, { code, candidateId: d.candidate, name: `candidate-${d.candidate}`, reason: 'replayed for the report' });
      }
      dataPlane.step();
    }
    const result = dataPlane.finish();
    return { ...series(result.sim), servedMinutes: result.sim.simSeconds / 60, events };
  } catch (error) {
    dataPlane.dispose();
    throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
