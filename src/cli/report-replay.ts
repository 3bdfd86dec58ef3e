import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataPlane, stagePolicy, type SlotEvent } from '../dataplane/index.js';
import { replaySnapshot, sandboxHook, type SchedCost, type Snapshot } from '../evaluate/index.js';
import { policyReplay, serveReplay, type PolicyReplay, type ServedSettings, type ServeReplay } from '../report/index.js';
import { PolicyFailure, PolicySandbox, type SandboxOptions } from '../sandbox/index.js';
import { scenarioOf } from './serve-session.js';
import { ServeSettingsSchema } from './serve-settings.js';
import { parseOrThrow } from '../common/validate.js';
import type { DeploymentRecord, LineageStore } from '../store/index.js';

/**
 * The replays behind `report`'s per-minute charts, run here because they
 * need the sandbox and the data plane; src/report turns their results into
 * the page's series.
 */

/** A candidate replayed as the evaluator scores it (evaluatePolicy's sandbox, hook and cap), keeping the slices. */
export function replayOnSnapshot(options: { schedCost: SchedCost; sandbox: SandboxOptions; capFactor?: number }) {
  return (snapshot: Snapshot, policy: { label: string; candidate: number; code: string }): PolicyReplay => {
    const failures: { kind: string; count: number }[] = [];
    let sandbox: PolicySandbox | undefined;
    try {
      sandbox = PolicySandbox.create(policy.code, { ...options.sandbox, seed: snapshot.seed, name: policy.label });
    } catch (error) {
      // As in evaluatePolicy: a policy that does not load is replayed as the split it cannot change.
      if (!(error instanceof PolicyFailure)) throw error;
      failures.push({ kind: error.kind, count: 1 });
    }
    try {
      const { sim } = replaySnapshot(snapshot, sandbox ? sandboxHook(sandbox, options.schedCost) : undefined, options.capFactor ?? 4);
      for (const f of sim.policy.failures) failures.push({ kind: f.kind, count: f.count });
      return policyReplay(snapshot, policy, sim, failures);
    } finally {
      sandbox?.dispose();
    }
  };
}

/**
 * Serve a serve run again, unpaced, from its saved settings, staging each
 * recorded deployment just before the monitoring step it happened at (as
 * `serve --resume` re-serves the past), up to `untilSeconds`. Rollbacks are
 * the data plane's own doing, as they were the first time.
 */
export function reserve(store: LineageStore, settings: ServedSettings, deployments: readonly DeploymentRecord[], untilSeconds: number): ServeReplay {
  const scenario = scenarioOf(parseOrThrow(ServeSettingsSchema, settings, { field: 'serve run settings' }));
  const first = deployments[0];
  const startCode = (first && store.getCandidate(first.candidate)?.code) || settings.policyCode;
  const staging = mkdtempSync(join(tmpdir(), 'autopoiesis-report-'));
  const events: SlotEvent[] = [];
  const dataPlane = new DataPlane(
    scenario,
    { name: settings.policyName, code: startCode, candidateId: first?.candidate ?? null },
    {
      stagingDir: settings.frozen ? undefined : staging,
      frozen: settings.frozen,
      ringMinutes: settings.ringMinutes,
      rollbackAfter: settings.rollbackAfter,
      sandbox: { cpuLimitMs: settings.cpuLimitMs, memoryLimitMb: settings.memoryLimitMb },
      onEvent: (e) => events.push(e),
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
    return serveReplay(dataPlane.finish().sim, events);
  } catch (error) {
    dataPlane.dispose();
    throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
