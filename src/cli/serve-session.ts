import { InputError } from '../common/errors.js';
import { ControlPlane, historyMinutes, type ControlPlaneConfigInput, type CycleOutcome, type CycleProgress, type DeployedPolicy } from '../controlplane/index.js';
import { computeSegments, DataPlane, readStaged, settleStaged, stagePolicy, type Clock, type PolicyRef, type SlotEvent } from '../dataplane/index.js';
import { openWorkload, parseMechanics, parseScenario, parseSplit, round, type Scenario, type SimMetrics } from '../sim/index.js';
import { PolicySandbox } from '../sandbox/index.js';
import type { WorkloadSource } from '../workload/index.js';
import type { BackendFactory } from '../evolve/engine/index.js';
import { parseOrThrow } from '../common/validate.js';
import { SERVE_SETTINGS_KEY, ServeSettingsSchema, type ServeSettings } from './serve-settings.js';

/**
 * One `serve` session: the data plane serving paced against the clock, the
 * control plane evolving in the background on snapshots of its window, each
 * hot-swap and rollback written to the lineage. Resuming a run re-serves the
 * simulated past unpaced, with the recorded deployments swapped in at their
 * recorded times, then goes on paced from where the killed process was.
 */
export interface ServeSessionOptions {
  dbPath: string;
  resume: boolean;
  /** A new run's settings (ignored on resume: the run's own are used, see `overrides`). */
  settings?: ServeSettings;
  /** On resume: duration and speed may be given anew. */
  overrides?: { durationMinutes?: number; speed?: number };
  controlPlane?: ControlPlaneConfigInput;
  stagingDir: string;
  clock?: Clock;
  signal?: AbortSignal;
  onStatus?: (status: ServeStatus) => void;
  log?: (line: string) => void;
  /** Where the control plane's candidates are evaluated (serve --queue); default: local worker threads. */
  backend?: BackendFactory;
}

export interface ServeStatus {
  simSeconds: number;
  split: string;
  lastMinute: { throughput: number; ttftP95: number | null } | null;
  deployed: PolicyRef;
  cycle: CycleProgress | null;
  cyclesDone: number;
  lagMs: number;
}

export interface ServeSegment {
  from: number;
  to: number;
  throughput: number | null;
  ttftP95: number | null;
  e2eMean: number | null;
  split: string;
}

export interface ServeReport {
  run: number;
  db: string;
  frozen: boolean;
  /** 'ended': served the whole duration; 'interrupted': stopped by a signal (resumable). */
  stop: 'ended' | 'interrupted';
  simMinutes: number;
  /** Cycles of the run (all processes, for a resumed run) and how they ended. */
  cycles: number;
  cyclesByStatus: Record<string, number>;
  /** Hot-swaps after the starting policy, and how many were rolled back. */
  deployments: number;
  rollbacks: number;
  rejected: number;
  droppedRequests: number;
  metrics: SimMetrics;
  segments: ServeSegment[];
  /** The run cut at each deployment: which policy served when. */
  policies: (ServeSegment & { policy: PolicyRef })[];
  maxLagMs: number;
}

export async function runServe(options: ServeSessionOptions): Promise<ServeReport> {
  const log = options.log ?? (() => {});
  let dataPlane: DataPlane | undefined;
  let serving: DeployedPolicy = { name: '', code: '', candidateId: null };
  let replaying = false;
  const outcomes: CycleOutcome[] = [];

  // Everything that can reject a new run's input comes before the database is touched.
  const opened = options.resume ? undefined : openServable(options.settings!);
  const controlPlane = await ControlPlane.open({
    dbPath: options.dbPath,
    resume: options.resume,
    config: options.resume ? undefined : { ...options.controlPlane, stagingDir: options.stagingDir },
    // A new run, its settings and its starting deployment are one commit: a kill while starting leaves all or nothing.
    start: options.resume
      ? undefined
      : { state: { [SERVE_SETTINGS_KEY]: options.settings! }, policy: { name: options.settings!.policyName, code: options.settings!.policyCode, reason: 'starting policy' } },
    snapshot: (request) => {
      if (!dataPlane) throw new InputError('the data plane has not started');
      return dataPlane.snapshot(request);
    },
    deployed: () => serving,
    stage: (dir, policy) => stagePolicy(dir, policy),
    backend: options.backend,
    clock: () => dataPlane?.simSeconds ?? 0,
    onCycle: (outcome) => {
      outcomes.push(outcome);
      log(`cycle ${outcome.cycleId ?? '-'} ${outcome.status} at ${minutes(outcome.endedAt)}: ${outcome.reason}`);
    },
    log,
  });
  let status: 'ended' | 'interrupted' = 'interrupted';
  try {
    const settings = options.resume ? resumedSettings(controlPlane, options) : options.settings!;
    const stagingDir = controlPlane.config.stagingDir;
    const history = controlPlane.deployments();
    let start: DeployedPolicy;
    if (history.length > 0) {
      const first = history[0]!;
      start = { name: settings.policyName, code: controlPlane.candidateCode(first.candidate) ?? settings.policyCode, candidateId: first.candidate };
    } else {
      // A run started by an older build, killed before its first deployment was written.
      const id = controlPlane.registerPolicy({ name: settings.policyName, code: settings.policyCode });
      controlPlane.recordDeployment({ candidateId: id, at: 0, reason: 'starting policy' });
      start = { name: settings.policyName, code: settings.policyCode, candidateId: id };
    }
    serving = start;
    // What a rollback restores: the slot keeps exactly the policy the last deployment replaced.
    let previous: DeployedPolicy | null = null;
    if (!settings.frozen) clearStaging(stagingDir, log);

    const onEvent = (event: SlotEvent) => {
      if (event.type === 'deploy') {
        previous = serving;
        const own = event.candidateId !== null && controlPlane.isCandidateOfRun(event.candidateId);
        serving = { name: event.name, code: event.code, candidateId: own ? event.candidateId : null };
      } else if (event.type === 'rollback') {
        serving = previous ?? policyFor(controlPlane, event.restored, serving);
        previous = null;
      }
      if (replaying) return;
      try {
        if (event.type === 'deploy') {
          if (serving.candidateId === null) {
            // Staged by hand (a hotfix): recorded as an external candidate of the run, with its code.
            const d = controlPlane.recordExternalDeployment({ name: event.name, code: event.code, at: event.at, reason: event.reason ?? `${event.name}, staged by hand` });
            serving = { ...serving, candidateId: d.candidate };
            return log(`deployed ${event.name} at ${minutes(event.at)}, staged by hand: recorded as external candidate ${d.candidate}`);
          }
          controlPlane.recordDeployment({ candidateId: serving.candidateId, at: event.at, cycleId: event.cycle ?? null, reason: event.reason });
          log(`deployed candidate ${serving.candidateId} at ${minutes(event.at)}, replacing ${event.replaced.candidateId ?? event.replaced.name}`);
        } else if (event.type === 'rollback') {
          controlPlane.recordRollback({ at: event.at, reason: event.reason });
          log(`rolled back candidate ${event.candidateId} at ${minutes(event.at)}: ${event.reason}`);
        } else {
          log(`rejected staged ${event.name} at ${minutes(event.at)}: ${event.reason}`);
        }
      } catch (error) {
        // The lineage must not stop serving; the event is still in the data plane's report.
        log(`could not record a ${event.type} in the lineage: ${error instanceof Error ? error.message : String(error)}`);
      }
    };

    const scenario = scenarioOf(settings);
    dataPlane = new DataPlane(scenario, { name: start.name, code: start.code, candidateId: start.candidateId }, {
      stagingDir: settings.frozen ? undefined : stagingDir,
      frozen: settings.frozen,
      ringMinutes: Math.max(settings.ringMinutes, historyMinutes(controlPlane.config)),
      rollbackAfter: settings.rollbackAfter,
      sandbox: { cpuLimitMs: settings.cpuLimitMs, memoryLimitMb: settings.memoryLimitMb },
      onEvent,
      source: opened,
    });

    if (options.resume && controlPlane.resumed) {
      replaying = true;
      replayPast(dataPlane, history.slice(1), controlPlane.resumed.simSeconds, stagingDir, controlPlane, log);
      replaying = false;
    }

    const snapshotSeconds = historyMinutes(controlPlane.config) * 60;
    let nextTimeSave = dataPlane.simSeconds + 60;
    const dp = dataPlane;
    const paced = await dp.runPaced({
      speed: settings.speed,
      clock: options.clock,
      signal: options.signal,
      untilSimSeconds: settings.durationMinutes * 60,
      onStep: (s, info) => {
        // Cycles start once the window holds a whole snapshot (warm-up + window, and the validation window before it).
        if (!settings.frozen && !controlPlane.running && dp.recordedSeconds >= snapshotSeconds) controlPlane.start();
        if (s.simSeconds >= nextTimeSave) {
          nextTimeSave = s.simSeconds + 60;
          try {
            controlPlane.recordSimTime(s.simSeconds);
          } catch (error) {
            log(`could not save the simulated time: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        options.onStatus?.({
          simSeconds: s.simSeconds,
          split: s.split,
          lastMinute: s.lastMinute,
          deployed: s.deployed,
          cycle: controlPlane.cycleInProgress,
          cyclesDone: outcomes.length,
          lagMs: info.lagMs,
        });
      },
    });
    status = paced.stop === 'aborted' ? 'interrupted' : 'ended';
    await controlPlane.stop();
    const result = dp.finish();
    const deployments = controlPlane.deployments();
    const cycles = controlPlane.cycles();
    const cyclesByStatus: Record<string, number> = {};
    for (const c of cycles) cyclesByStatus[c.status] = (cyclesByStatus[c.status] ?? 0) + 1;
    const cuts: number[] = [];
    for (let t = settings.segmentMinutes * 60; t < result.sim.simSeconds; t += settings.segmentMinutes * 60) cuts.push(t);
    return {
      run: controlPlane.runId,
      db: options.dbPath,
      frozen: settings.frozen,
      stop: status,
      simMinutes: round(result.sim.simSeconds / 60, 3),
      cycles: cycles.length,
      cyclesByStatus,
      deployments: deployments.length - 1,
      rollbacks: deployments.filter((d) => d.rolledBackAt !== null).length,
      rejected: result.events.filter((e) => e.type === 'reject').length,
      droppedRequests: result.requests.dropped,
      metrics: result.sim.metrics,
      segments: computeSegments(result.sim, cuts).map(segmentView),
      policies: result.segments.map((s) => ({ ...segmentView(s), policy: s.policy })),
      maxLagMs: round(paced.maxLagMs, 1),
    };
  } catch (error) {
    dataPlane?.dispose();
    throw error;
  } finally {
    await controlPlane.close(status === 'ended' ? 'finished' : 'interrupted');
  }
}

/** The simulation a serve run's settings describe (also what `report` re-serves). */
export type ServedCluster = Pick<ServeSettings, 'workload' | 'agents' | 'arrivalRate' | 'bursts' | 'membership' | 'nodes' | 'nodeKinds' | 'split' | 'mechanics' | 'durationMinutes' | 'seed'>;

export function scenarioOf(settings: ServedCluster): Scenario {
  return parseScenario({
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
}

/**
 * Open the workload (served as is: a trace is read once) after checking the
 * split, and load the starting policy once in a sandbox: InputError or
 * PolicyFailure (exit 2) before anything is written.
 */
function openServable(settings: ServeSettings): WorkloadSource {
  parseSplit(settings.split, settings.nodes);
  const source = openWorkload(scenarioOf(settings));
  PolicySandbox.create(settings.policyCode, { cpuLimitMs: settings.cpuLimitMs, memoryLimitMb: settings.memoryLimitMb, seed: settings.seed }).dispose();
  return source;
}

function resumedSettings(controlPlane: ControlPlane, options: ServeSessionOptions): ServeSettings {
  const stored = controlPlane.loadSettings(SERVE_SETTINGS_KEY);
  if (stored === undefined) throw new InputError('the serve run has no saved settings to resume with', { file: options.dbPath, field: '--resume' });
  const settings = parseOrThrow(ServeSettingsSchema, stored, { file: options.dbPath, field: `run_state.${SERVE_SETTINGS_KEY}` });
  return {
    ...settings,
    durationMinutes: options.overrides?.durationMinutes ?? settings.durationMinutes,
    speed: options.overrides?.speed ?? settings.speed,
  };
}

/**
 * Serve the simulated past again, unpaced, swapping the recorded
 * deployments in at the monitoring step they happened at (staged just
 * before it), up to the time the killed process had reached. Nothing is
 * written to the lineage meanwhile: it already holds these events.
 */
function replayPast(
  dataPlane: DataPlane,
  deployments: readonly { candidate: number; deployedAt: number }[],
  until: number,
  stagingDir: string,
  controlPlane: ControlPlane,
  log: (line: string) => void,
): void {
  const pending = [...deployments].sort((a, b) => a.deployedAt - b.deployedAt);
  while (!dataPlane.done && dataPlane.nextStepAt <= until) {
    while (pending.length > 0 && pending[0]!.deployedAt <= dataPlane.nextStepAt) {
      const d = pending.shift()!;
      const code = controlPlane.candidateCode(d.candidate);
      if (code) stagePolicy(stagingDir, { code, candidateId: d.candidate, name: `candidate-${d.candidate}`, reason: 'replayed on resume' });
    }
    dataPlane.step();
  }
  const current = controlPlane.currentDeployment();
  const serving = dataPlane.status().deployed;
  if (current && serving.candidateId !== current.candidate) {
    // The replay diverged (a rollback the first time, not this time, or the reverse): serve what the lineage says.
    const code = controlPlane.candidateCode(current.candidate);
    if (code) stagePolicy(stagingDir, { code, candidateId: current.candidate, name: `candidate-${current.candidate}`, reason: 'deployed when the run stopped' });
  }
  log(`resumed: re-served ${minutes(dataPlane.simSeconds)} of the past with ${deployments.length} recorded deployment(s)`);
}

/** Staged files left by an earlier process are not this session's winners: set them aside. */
function clearStaging(dir: string, log: (line: string) => void): void {
  const read = readStaged(dir);
  const stale = [...read.superseded, ...(read.latest ? [read.latest] : [])];
  if (read.latest) settleStaged(read.latest, 'rejected');
  if (stale.length > 0) log(`set aside ${stale.length} staged file(s) left in ${dir} by an earlier process`);
}

function policyFor(controlPlane: ControlPlane, ref: PolicyRef, fallback: DeployedPolicy): DeployedPolicy {
  if (ref.candidateId === null) return { ...fallback, name: ref.name, candidateId: null };
  return { name: ref.name, code: controlPlane.candidateCode(ref.candidateId) ?? fallback.code, candidateId: ref.candidateId };
}

function segmentView(s: { from: number; to: number; throughput: number | null; ttftP95: number | null; e2eMean: number | null; split: string }): ServeSegment {
  return {
    from: s.from,
    to: s.to,
    throughput: s.throughput === null ? null : round(s.throughput, 3),
    ttftP95: s.ttftP95 === null ? null : round(s.ttftP95, 3),
    e2eMean: s.e2eMean === null ? null : round(s.e2eMean, 3),
    split: s.split,
  };
}

function minutes(seconds: number): string {
  return `${(seconds / 60).toFixed(1)} min`;
}
