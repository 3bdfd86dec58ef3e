import { UsageError } from '../common/errors.js';
import type { Snapshot, SchedCost } from '../evaluate/index.js';
import type { SandboxOptions } from '../sandbox/index.js';
import { createSimulator, expandNodeKinds, formatSplit, openWorkload, parseSplit, type MembershipChange, type PolicyHook, type Scenario, type SimResult, type Simulator } from '../sim/index.js';
import type { WorkloadSource } from '../workload/index.js';
import { runPaced, type PaceOptions, type PaceResult, type Steppable } from './pacing.js';
import { PolicySlot, type PolicySpec, type SlotEvent } from './policy-slot.js';
import { RecordingSource } from './recording-source.js';
import { computeSegments, type Segment } from './segments.js';
import { snapshotFromCapture } from './snapshot.js';
import { StagingArea, type StagedPolicy } from './staging.js';
import { nodeRecords, WindowRecorder, type PolicyRef, type StepRecord, type WindowCapture, type WindowRequest } from './window.js';

export interface DataPlaneOptions {
  /** Where the control plane stages policies (e.g. `policies/staging`). Without it, nothing is ever swapped in. */
  stagingDir?: string;
  /** `--frozen`: ignore the staging area entirely (the starting policy serves throughout). */
  frozen?: boolean;
  /** Minutes of history the ring keeps for snapshots (default 30). */
  ringMinutes?: number;
  /** Failed reschedule attempts in a row of a newly deployed policy before the previous one is restored (default 3; see PolicySlotOptions). */
  rollbackAfter?: number;
  /** Limits of each policy's sandbox (CPU per call, memory). */
  sandbox?: Omit<SandboxOptions, 'seed' | 'name'>;
  /** How policy CPU time is charged as scheduling delay (default counted: deterministic). */
  schedCost?: SchedCost;
  /** Serve this source instead of opening `scenario.workload` (tests, custom sources). */
  source?: WorkloadSource;
  /** Called at every deploy, reject and rollback. */
  onEvent?: (event: SlotEvent) => void;
}

export interface DataPlaneStatus {
  /** Simulated seconds served. */
  simSeconds: number;
  /** The split the cluster is in or headed to (up nodes). */
  split: string;
  /** The last completed one-minute slice, or null before the first minute. */
  lastMinute: { throughput: number; ttftP95: number | null } | null;
  deployed: PolicyRef;
  /** A validated policy waiting for the next monitoring step. */
  pending: PolicyRef | null;
  policyFailures: number;
  rollbacks: number;
  deploys: number;
  rejects: number;
  steps: number;
  done: boolean;
}

/** A segment of the run under one deployed policy. */
export interface DeploymentSegment extends Segment {
  policy: PolicyRef;
}

export interface DataPlaneResult {
  sim: SimResult;
  /** The run cut at every deploy and rollback, with the policy serving each part. */
  segments: DeploymentSegment[];
  events: SlotEvent[];
  /**
   * Requests that arrived (recorded as the source emitted them), completed
   * (completions the simulator reported) and still in the cluster at the
   * end; `dropped` = arrived - completed - inFlight, 0 unless a request was
   * lost.
   */
  requests: { arrived: number; completed: number; inFlight: number; dropped: number };
  policy: { failures: number; failureKinds: { kind: string; count: number }[]; rollbacks: number };
}

export interface RunPacedOptions extends PaceOptions {
  /** Called after every step with the status. */
  onStep?: (status: DataPlaneStatus, info: { lagMs: number }) => void;
}

/**
 * The data plane (design section 1): serves a scenario's workload in the
 * simulator one monitoring step at a time, with the deployed policy called
 * in its sandbox every step, hot-swapping staged policies, and recording
 * what it saw into a fixed-size ring from which snapshots are cut.
 *
 * A step: read the staging area (a staged policy is validated now and
 * deployed at this step's monitoring call), advance the simulator to the
 * next monitoring time, record the step. Everything is synchronous; the
 * only wall-clock use is in `runPaced`'s clock.
 */
export class DataPlane implements Steppable {
  private readonly sim: Simulator;
  private readonly slot: PolicySlot;
  private readonly recording: RecordingSource;
  private readonly window: WindowRecorder;
  private readonly staging: StagingArea | null;
  private readonly monitorStep: number;
  private nextAt = 0;
  private steps = 0;
  private lastEnd = 0;
  private lastRecord: StepRecord | null = null;
  private ended = false;
  private finished = false;
  /** Membership changes seen by the policy since the last recorded step. */
  private membershipSeen: MembershipChange[] = [];
  private lastMonitorAt = -Infinity;
  private readonly initialPolicy: PolicyRef;

  /** Throws PolicyFailure when the starting policy does not load, UsageError on bad options. */
  constructor(
    readonly scenario: Scenario,
    policy: PolicySpec,
    private readonly options: DataPlaneOptions = {},
  ) {
    const ringMinutes = options.ringMinutes ?? 30;
    this.monitorStep = scenario.monitorStepSeconds;
    if (ringMinutes * 60 < this.monitorStep) throw new UsageError(`ringMinutes (${ringMinutes}) must cover at least one monitoring step of ${this.monitorStep} s`);
    this.slot = new PolicySlot(policy, {
      schedCost: options.schedCost ?? { kind: 'counted' },
      sandbox: options.sandbox,
      seed: scenario.seed,
      rollbackAfter: options.rollbackAfter,
      onEvent: options.onEvent,
    });
    this.initialPolicy = this.slot.deployed;
    try {
      this.recording = new RecordingSource(options.source ?? openWorkload(scenario));
      this.window = new WindowRecorder(
        {
          label: this.recording.name,
          model: this.recording.model,
          nodeKinds: expandNodeKinds(scenario.nodeKinds, scenario.nodes),
          mechanics: scenario.mechanics,
          seed: scenario.seed,
          monitorStepSeconds: this.monitorStep,
        },
        ringMinutes,
      );
      this.staging = options.frozen || options.stagingDir === undefined ? null : new StagingArea(options.stagingDir);
      this.sim = createSimulator(scenario, { policy: this.observedHook(), source: this.recording });
    } catch (error) {
      this.slot.dispose();
      throw error;
    }
  }

  /** Simulated seconds served so far. */
  get simSeconds(): number {
    return this.sim.time;
  }

  /** The simulated time the next step advances to (a monitoring step). */
  get nextStepAt(): number {
    return this.nextAt;
  }

  /** True once the scenario's end is reached or finish() was called. */
  get done(): boolean {
    return this.ended || this.finished;
  }

  /** Deploy, reject and rollback events so far. */
  get events(): readonly SlotEvent[] {
    return this.slot.events;
  }

  /**
   * One monitoring step: pick up a staged policy (validated now, deployed at
   * this step's policy call), advance the simulator to the next monitoring
   * time, record what arrived and the cluster state. Returns false once the
   * simulation has ended (nothing more to do).
   */
  step(): boolean {
    if (this.done) return false;
    this.pollStaging();
    const t = this.nextAt;
    const more = this.sim.advanceTo(t);
    this.nextAt = t + this.monitorStep;
    this.recordStep();
    this.steps++;
    if (!more) this.ended = true;
    return more;
  }

  /**
   * Step against the clock at `speed` simulated seconds per real second
   * until the simulation ends, the signal aborts, or `untilSimSeconds`.
   */
  runPaced(options: RunPacedOptions): Promise<PaceResult> {
    const onStep = options.onStep;
    return runPaced(this, options, onStep ? (info) => onStep(this.status(), info) : undefined);
  }

  status(): DataPlaneStatus {
    const slice = this.finished ? undefined : this.sim.completedSlices(1)[0];
    const events = this.slot.events;
    const nodes = this.lastRecord?.nodes;
    return {
      simSeconds: this.sim.time,
      split: nodes ? formatSplit(nodes.filter((n) => n.state !== 'down').map((n) => n.targetRole ?? n.role)) : formatSplit(parseSplit(this.scenario.split, this.scenario.nodes)),
      lastMinute: slice ? { throughput: slice.completions / (slice.end - slice.start), ttftP95: slice.completions > 0 ? slice.ttftP95 : null } : null,
      deployed: this.slot.deployed,
      pending: this.slot.pending,
      policyFailures: this.slot.failures,
      rollbacks: this.slot.rollbacks,
      deploys: events.filter((e) => e.type === 'deploy').length,
      rejects: events.filter((e) => e.type === 'reject').length,
      steps: this.steps,
      done: this.done,
    };
  }

  /** Seconds of history a snapshot can cover now. */
  get recordedSeconds(): number {
    return this.window.recordedSeconds;
  }

  /**
   * The steps of the last `warmupMinutes + windowMinutes` (or as much as was
   * recorded), without copying them: cheap, and the ring is not changed.
   * Build the snapshot from it with `snapshotFromCapture`, here or elsewhere.
   */
  captureWindow(request: WindowRequest): WindowCapture {
    return this.window.capture(request);
  }

  /** An evaluator snapshot of the recent past (see snapshotFromCapture for what it holds). */
  snapshot(request: WindowRequest): Snapshot {
    return snapshotFromCapture(this.captureWindow(request));
  }

  /** The step records the ring holds, oldest first. */
  records(): StepRecord[] {
    return this.window.records();
  }

  /**
   * End the run where it stands (or at the scenario's end) and free the
   * sandboxes. Throws SimulationInvariantError when a request was lost
   * (the simulator's conservation check).
   */
  finish(): DataPlaneResult {
    if (this.finished) throw new UsageError('the data plane has already finished');
    this.finished = true;
    try {
      const sim = this.sim.finish();
      this.recording.takeArrived(sim.simSeconds, true);
      const arrived = this.recording.requestsTaken;
      const completed = this.recording.completions;
      const inFlight = sim.metrics.requestsInFlight;
      const events = [...this.slot.events];
      return {
        sim,
        segments: deploymentSegments(sim, events, this.initialPolicy),
        events,
        requests: { arrived, completed, inFlight, dropped: arrived - completed - inFlight },
        policy: { failures: this.slot.failures, failureKinds: this.slot.failureKinds, rollbacks: this.slot.rollbacks },
      };
    } finally {
      this.slot.dispose();
    }
  }

  /** Free the sandboxes without finishing (after an error). Idempotent. */
  dispose(): void {
    this.finished = true;
    this.slot.dispose();
  }

  private pollStaging(): void {
    if (!this.staging) return;
    const read = this.staging.take();
    if (!read.latest) return;
    const latest = read.latest;
    for (const old of read.superseded) this.slot.recordSuperseded(specOf(old), this.sim.time, latest.name);
    const verdict = this.slot.offer(specOf(latest), this.sim.buildCtx());
    this.staging.settle(latest, verdict.ok ? 'deployed' : 'rejected');
  }

  /** The slot as the simulator's hook, noting the membership changes each monitoring call sees. */
  private observedHook(): PolicyHook {
    const slot = this.slot;
    return {
      shouldReschedule: (ctx) => {
        for (const m of ctx.membership) if (m.at > this.lastMonitorAt && m.at <= ctx.now) this.membershipSeen.push({ node: m.node, at: m.at, event: m.event });
        this.lastMonitorAt = ctx.now;
        return slot.shouldReschedule(ctx);
      },
      schedule: (ctx) => slot.schedule(ctx),
    };
  }

  private recordStep(): void {
    const end = this.sim.time;
    const ctx = this.sim.buildCtx();
    const arrived = this.recording.takeArrived(end);
    this.lastRecord = this.window.push({
      start: this.lastEnd,
      end,
      requests: arrived.requests,
      ends: arrived.ends,
      nodes: nodeRecords(ctx),
      plan: [...ctx.plan.roles],
      mechanics: ctx.mechanics,
      membership: this.membershipSeen,
      policy: this.slot.deployed,
    });
    this.membershipSeen = [];
    this.lastEnd = end;
  }
}

function specOf(s: StagedPolicy): PolicySpec {
  return {
    name: s.name,
    code: s.code,
    candidateId: s.candidateId,
    ...(s.fitness !== undefined ? { fitness: s.fitness } : {}),
    ...(s.cycle !== undefined ? { cycle: s.cycle } : {}),
    ...(s.reason !== undefined ? { reason: s.reason } : {}),
  };
}

/** Cut the run at each deploy and rollback; each part names the policy that served it. */
export function deploymentSegments(sim: SimResult, events: readonly SlotEvent[], initial: PolicyRef): DeploymentSegment[] {
  const changes: { at: number; policy: PolicyRef }[] = [];
  for (const e of events) {
    if (e.type === 'deploy') changes.push({ at: e.at, policy: { name: e.name, candidateId: e.candidateId } });
    else if (e.type === 'rollback') changes.push({ at: e.at, policy: e.restored });
  }
  const first = events.find((e) => e.type === 'deploy' || e.type === 'rollback');
  const start = first ? (first.type === 'deploy' ? first.replaced : { name: first.name, candidateId: first.candidateId }) : initial;
  return computeSegments(
    sim,
    changes.map((c) => c.at),
  ).map((seg) => {
    let policy = start;
    for (const c of changes) if (c.at <= seg.from) policy = c.policy;
    return { ...seg, policy };
  });
}
