import type { Rng } from '../common/rng.js';
import type { WorkloadEvent, WorkloadSource } from '../workload/types.js';
import type { SimEvent } from './events.js';
import type { NodeHardware } from './hardware.js';
import type { KvDirectory } from './kv/index.js';
import type { ClusterLearning, OnlineLearningOptions } from './learning/index.js';
import type { Plan } from '../policy/schema.js';
import type { Knobs, Mechanics } from './mechanics.js';
import type { MembershipChange } from './membership.js';
import type { MetricsRecorder, TransitionRecord } from './metrics.js';
import type { SimNode } from './node.js';
import type { PolicyCtx, PolicyHook } from './policy-hook.js';
import type { RequestState } from './request-state.js';
import type { DecodeRouterState } from './routing/decode.js';
import type { PrefillRouterState } from './routing/prefill.js';
import { formatSplit, type Role } from './split.js';

export interface SimOptions {
  /** One entry per node. */
  hardware: readonly NodeHardware[];
  /** Initial role of every node. */
  roles: readonly Role[];
  mechanics: Mechanics;
  /**
   * Contract-v2 settings in force at time 0 on top of `mechanics` (what a
   * snapshot of the data plane recorded where its window starts); left out,
   * the run starts at the mechanics' own settings.
   */
  initialKnobs?: Omit<Plan, 'roles'>;
  source: WorkloadSource;
  seed: number;
  warmupSeconds: number;
  scoredSeconds: number;
  sliceSeconds?: number;
  monitorStepSeconds?: number;
  /** Slices of the planning window handed to a policy (10 x 60 s = 600 s). */
  windowSlices?: number;
  membership?: readonly MembershipChange[];
  policy?: PolicyHook;
  /**
   * Stop as soon as every request has completed and the workload has nothing
   * more to send (after the warm-up), instead of at warm-up + scored seconds,
   * which then only caps the run. Snapshot replays use this.
   */
  stopWhenDrained?: boolean;
  /**
   * How the engine gets its iteration-time model (design: src/sim/learning/README.md).
   * 'online' (default): it learns it from its own iterations, starting from
   * each node's `hw.engineSetup` prior, serving both phases on every node
   * until the fit converges (within the warm-up); routing and ctx.model use
   * the learned model. 'given': each node's `hw.engine` is used as is and
   * nothing is learned (unit tests that need exact timings).
   */
  learning?: 'online' | 'given';
  /** Online learning: fitting windows and convergence rule; `collocate: false` keeps the configured roles while learning. */
  learningOptions?: OnlineLearningOptions & { collocate?: boolean };
  /** ctx.model with `learning: 'given'`: the engine's coefficients per node kind. Online learning builds ctx.model from what it learned. */
  policyModel?: PolicyCtx['model'];
  onProgress?: (simSeconds: number) => void;
}

export interface PolicyStats {
  calls: number;
  reschedules: number;
  plansApplied: number;
  failures: { kind: string; count: number; firstMessage: string }[];
  cpuSeconds: number;
  /** Charged CPU seconds of the calls made after the warm-up. */
  scoredCpuSeconds: number;
  /** Seconds between a schedule decision and its plan taking effect, summed. */
  delaySeconds: number;
  nodesSwitched: number;
  /**
   * Every plan a policy produced: when it was decided, when it applies, which
   * nodes it changes. A plan rejected when it would take effect changes no
   * node (changedNodes is emptied, rejected set): it costs no stale time.
   */
  plans: PlanRecord[];
}

export interface PlanRecord {
  decidedAt: number;
  appliesAt: number;
  changedNodes: number[];
  rejected?: true;
}

/**
 * The cluster's whole mutable state. The transition modules
 * (src/sim/transitions) change it in response to events and return the
 * follow-up events; only the event loop (simulator.ts) advances `now`.
 */
export interface SimState {
  readonly opts: SimOptions;
  readonly nodes: SimNode[];
  readonly kv: KvDirectory;
  readonly rng: Rng;
  readonly metrics: MetricsRecorder;
  /** Requests that arrived and have not completed. */
  readonly requests: Map<number, RequestState>;
  /** Cluster-level queues: requests waiting for any node of their phase to accept them. */
  readonly pendingPrefill: RequestState[];
  readonly pendingDecode: RequestState[];
  /** decodeSlots 'dispatch': decode nodes whose waiting requests are looked at after the event (transitions/slot-admission.ts). */
  readonly slotWake: SimNode[];
  readonly prefillRouter: PrefillRouterState;
  readonly decodeRouter: DecodeRouterState;
  /** The mechanics a plan may change (contract v2), starting from opts.mechanics. */
  readonly knobs: Knobs;
  /** Simulated time of the event being handled. */
  now: number;
  endSeconds: number;
  /** Workload events queued and not yet handled (a drained run has none). */
  pendingWorkloadEvents: number;
  /** The plan in force: the role each node should have. */
  desiredRoles: Role[];
  /** Membership changes since the last reschedule (ctx.membership). */
  readonly membershipLog: MembershipChange[];
  lastRescheduleAt: number | null;
  /** Node-seconds of prefill nodes, and of prefill compute, in the scored period (prefill idle %). */
  prefillNodeSeconds: number;
  prefillComputeSeconds: number;
  /** Online learning of the engine's iteration-time model (null with learning 'given'). */
  readonly learning: ClusterLearning | null;
  /** Every node serves both phases (the learning phase at the start of the warm-up). */
  collocating: boolean;
  collocatedUntil: number | null;
  readonly policyStats: PolicyStats;
}

/** Queue a workload event (no earlier than now), counting it until it is handled. */
export function scheduleWorkload(s: SimState, event: WorkloadEvent, now: number, out: SimEvent[]): void {
  s.pendingWorkloadEvents++;
  out.push({ type: 'workload', at: Math.max(event.at, now), event });
}

/** The split of the up nodes, counting switching nodes by the role they switch to. */
export function currentSplit(s: SimState): string {
  return formatSplit(s.nodes.filter((n) => n.up).map((n) => n.targetRole));
}

/** The node's transition record still open, if any. */
export function openTransition(s: SimState, node: number): TransitionRecord | undefined {
  const items = s.metrics.transitions;
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.node === node && items[i]!.end === null) return items[i];
  return undefined;
}

export function scoredPeriod(s: SimState, now: number): boolean {
  return now >= s.opts.warmupSeconds && now < s.endSeconds;
}
