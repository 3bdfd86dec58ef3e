import { Rng } from '../common/rng.js';
import { SimulationInvariantError } from '../common/errors.js';
import type { SimRequest } from '../workload/types.js';
import type { EventQueue } from './event-queue.js';
import { createEventQueue, type SimEvent } from './events.js';
import { KvDirectory, MAX_NODES } from './kv/index.js';
import { ClusterLearning, givenLearningResult, type LearningResult } from './learning/index.js';
import { beginLearning, engineFor, modelSettled, onLearn } from './learning-driver.js';
import { PlanSchema } from '../policy/schema.js';
import { applyPlanKnobs, initialKnobs, type Knobs } from './mechanics.js';
import { MetricsRecorder, type SimMetrics, type SliceMetrics, type TransitionRecord } from './metrics.js';
import { SimNode } from './node.js';
import { BLOCK_TOKENS } from './request-state.js';
import { newPrefillRouterState } from './routing/prefill.js';
import { buildCtx, onPlan } from './policy-driver.js';
import type { PolicyCtx } from './policy-hook.js';
import { currentSplit, scheduleWorkload, type PolicyStats, type SimOptions, type SimState } from './sim-state.js';
import { onDecodeStep, onTransferDone } from './transitions/decode.js';
import { onWorkload } from './transitions/intake.js';
import { onMembership } from './transitions/membership.js';
import { onMonitor } from './transitions/monitor.js';
import { onFetchDone, onPrefillDone } from './transitions/prefill.js';
import { maybeFinishSwitch, onRestartDone } from './transitions/role-switch.js';
import { admitWoken } from './transitions/slot-admission.js';

/** The plan's contract-v2 fields alone: what SimOptions.initialKnobs may set. */
const PlanKnobsSchema = PlanSchema.omit({ roles: true });

export type { PolicyStats, SimOptions } from './sim-state.js';

export interface SimResult {
  metrics: SimMetrics;
  slices: SliceMetrics[];
  transitions: TransitionRecord[];
  splitTimeline: { at: number; split: string }[];
  finalSplit: string;
  policy: PolicyStats;
  simSeconds: number;
  events: number;
  kv: ReturnType<KvDirectory['stats']>;
  /** How the engine's iteration-time model was learned, and its error against the noise-free truth. */
  learning: LearningResult;
}

/**
 * The discrete-event cluster simulator (design section 3): the event loop
 * and the clock. Each event goes to the transition of its concern
 * (src/sim/transitions, the policy and learning drivers), a function of
 * (state, event, now) that changes the state and returns the follow-up
 * events, which the loop queues in the order returned. Nothing reads a clock
 * or Math.random, so the same seed and inputs give the same run.
 */
export class Simulator {
  private readonly queue: EventQueue<SimEvent> = createEventQueue();
  private readonly s: SimState;
  private readonly monitorStep: number;
  private events = 0;
  private started = false;
  private finished = false;
  private nextProgress = 0;
  /** Time of the last event dispatched: where a drained run ends, however the caller steps the clock. */
  private lastEventAt = 0;

  constructor(private readonly opts: SimOptions) {
    if (opts.hardware.length !== opts.roles.length) throw new SimulationInvariantError('one hardware entry per node is required');
    if (opts.hardware.length > MAX_NODES) throw new SimulationInvariantError(`at most ${MAX_NODES} nodes are supported`);
    const endSeconds = opts.warmupSeconds + opts.scoredSeconds;
    this.monitorStep = opts.monitorStepSeconds ?? 5;
    const learning = (opts.learning ?? 'online') === 'online' ? new ClusterLearning(opts.hardware, opts.learningOptions) : null;
    const nodes = opts.hardware.map((hw, id) => {
      // Decode noise is drawn once per batch epoch: between two batch changes the iteration time is constant.
      const iterTime = (b: number, ctx: number): number => {
        const seconds = hw.truth.decodeTime(b, ctx);
        learning?.decode(hw, this.s.now, b, ctx, seconds);
        return seconds;
      };
      const decodeKvTokens = opts.mechanics.decodeKv === 'gpu' ? hw.l1Blocks * BLOCK_TOKENS : Infinity;
      return new SimNode(id, hw, opts.roles[id]!, iterTime, engineFor(learning, hw, id), decodeKvTokens);
    });
    this.s = {
      opts,
      nodes,
      kv: new KvDirectory({
        nodeCount: nodes.length,
        l1CapacityBlocks: opts.hardware.map((h) => h.l1Blocks),
        l2CapacityBlocks: opts.hardware.map((h) => h.l2Blocks),
        eviction: opts.mechanics.eviction,
      }),
      rng: Rng.derive(opts.seed, 'sim'),
      metrics: new MetricsRecorder(opts.warmupSeconds, endSeconds, opts.sliceSeconds ?? 60, opts.hardware[0]!.tokensPerDecodeIteration),
      requests: new Map(),
      pendingPrefill: [],
      pendingDecode: [],
      slotWake: [],
      prefillRouter: newPrefillRouterState(opts.mechanics.affinityView),
      decodeRouter: { nextRoundRobin: 0 },
      knobs: startingKnobs(opts),
      now: 0,
      endSeconds,
      pendingWorkloadEvents: 0,
      desiredRoles: [...opts.roles],
      membershipLog: [],
      lastRescheduleAt: null,
      prefillNodeSeconds: 0,
      prefillComputeSeconds: 0,
      learning,
      collocating: false,
      collocatedUntil: null,
      policyStats: { calls: 0, reschedules: 0, plansApplied: 0, failures: [], cpuSeconds: 0, scoredCpuSeconds: 0, delaySeconds: 0, nodesSwitched: 0, plans: [] },
    };
    if (opts.initialKnobs?.eviction) this.s.kv.setEviction(this.s.knobs.eviction, this.s.knobs.protectWaiting === 'both');
  }

  /** Runs the whole simulation: start, advance to the end, finish. */
  run(): SimResult {
    this.advanceTo(Infinity);
    return this.finish();
  }

  /** Simulated seconds reached so far. */
  get time(): number {
    return this.s.now;
  }

  /** True while every node serves both phases so that the engine can learn its iteration-time model. */
  get learningPhase(): boolean {
    return this.s.collocating;
  }

  /** True once the engine model can no longer change in this run (learning-driver.ts): a run kept for its model may stop. */
  get modelSettled(): boolean {
    return modelSettled(this.s);
  }

  /** True once the end time is reached (or, with stopWhenDrained, the work is done). */
  get done(): boolean {
    return this.finished;
  }

  /**
   * Processes every event due at or before `t` (simulated seconds), so that a
   * caller can pace the run against a wall clock (the data plane). Returns
   * false once the simulation has ended.
   */
  advanceTo(t: number): boolean {
    const { opts, s } = this;
    if (!this.started) this.begin();
    if (this.finished) return false;
    for (;;) {
      const next = this.queue.peek();
      if (!next || next.at > s.endSeconds) {
        this.finished = true;
        break;
      }
      if (next.at > t) break;
      const ev = this.queue.pop()!;
      if (opts.stopWhenDrained && ev.at > opts.warmupSeconds && s.requests.size === 0 && s.pendingWorkloadEvents === 0) {
        // Not s.now: a caller stepping the clock (advanceTo(t) moves it to t) would otherwise end the run up to one step late.
        this.endAt(this.lastEventAt);
        break;
      }
      s.now = ev.at;
      this.lastEventAt = ev.at;
      this.events++;
      const follows = this.dispatch(ev);
      if (s.slotWake.length > 0) admitWoken(s, s.now, follows);
      for (const follow of follows) this.queue.push(follow);
      if (opts.onProgress && s.now >= this.nextProgress) {
        opts.onProgress(s.now);
        this.nextProgress = s.now + 60;
      }
    }
    if (!this.finished && t !== Infinity && t > s.now) s.now = Math.min(t, s.endSeconds);
    return !this.finished;
  }

  /** Slices completed so far (live metrics for a status line). */
  completedSlices(count: number): SliceMetrics[] {
    return this.s.metrics.recentSlices(this.s.now, count);
  }

  /** Ends the run (at the end time, or now if stopped early) and returns the result. */
  finish(): SimResult {
    const { s } = this;
    if (!this.started) this.begin();
    // Stopped early (the data plane ended before the configured end): the run ends now.
    if (!this.finished) this.endAt(s.now);
    s.now = s.endSeconds;
    this.checkConservation();
    const idle = s.prefillNodeSeconds > 0 ? 100 * (1 - Math.min(1, s.prefillComputeSeconds / s.prefillNodeSeconds)) : 0;
    return {
      metrics: s.metrics.finalize(s.requests.size, idle),
      slices: s.metrics.allSlices(),
      transitions: s.metrics.transitions,
      splitTimeline: s.metrics.splitTimeline,
      finalSplit: currentSplit(s),
      policy: s.policyStats,
      simSeconds: s.endSeconds,
      events: this.events,
      kv: s.kv.stats(),
      learning: s.learning ? s.learning.result(s.collocatedUntil) : givenLearningResult(),
    };
  }

  /** Blocks the node's prefix cache holds in a tier (1 = GPU, 2 = host). */
  cachedBlocks(node: number, tier: 1 | 2): number {
    return this.s.kv.used(node, tier);
  }

  buildCtx(): PolicyCtx {
    return buildCtx(this.s, this.s.now);
  }

  private endAt(t: number): void {
    this.s.endSeconds = t;
    this.s.metrics.endSeconds = t;
    this.finished = true;
  }

  private begin(): void {
    const { opts, s } = this;
    this.started = true;
    s.metrics.split(0, currentSplit(s));
    const out: SimEvent[] = [];
    for (const ev of opts.source.start()) scheduleWorkload(s, ev, s.now, out);
    for (const change of opts.membership ?? []) out.push({ type: 'membership', at: change.at, change });
    if (s.learning) beginLearning(s, s.learning, out);
    out.push({ type: 'monitor', at: 0 });
    for (const ev of out) this.queue.push(ev);
  }

  private dispatch(ev: SimEvent): SimEvent[] {
    const { s } = this;
    const now = s.now;
    switch (ev.type) {
      case 'workload':
        return onWorkload(s, ev, now);
      case 'fetch-done':
        return onFetchDone(s, ev, now);
      case 'prefill-done':
        return this.afterNodeWork(ev.node, onPrefillDone(s, ev, now));
      case 'transfer-done':
        return this.afterNodeWork(ev.node, onTransferDone(s, ev, now));
      case 'decode':
        return this.afterNodeWork(ev.node, onDecodeStep(s, ev, now));
      case 'restart-done':
        return onRestartDone(s, ev, now);
      case 'membership':
        return onMembership(s, ev, now);
      case 'plan':
        return onPlan(s, ev, now);
      case 'learn':
        return onLearn(s, ev, now);
      case 'monitor':
        return onMonitor(s, now, this.monitorStep);
    }
  }

  /** Work on a node ended or moved on: a switching node may now be drained. */
  private afterNodeWork(nodeId: number, out: SimEvent[]): SimEvent[] {
    const node = this.s.nodes[nodeId]!;
    if (node.status === 'switching') maybeFinishSwitch(this.s, node, this.s.now, out);
    return out;
  }

  /** Every request that arrived is completed or still somewhere in the cluster. */
  private checkConservation(): void {
    const { s } = this;
    let located = s.pendingPrefill.length + s.pendingDecode.length;
    for (const n of s.nodes) located += n.prefillQueue.length + n.prefillRunning.length + n.decodeRequests.size + n.preallocQueue.length;
    for (const rs of s.requests.values()) if (rs.phase === 'transfer') located++;
    if (located !== s.requests.size || s.metrics.arrived !== s.metrics.completed + s.requests.size) {
      throw new SimulationInvariantError(
        `request conservation broken: arrived ${s.metrics.arrived}, completed ${s.metrics.completed}, in flight ${s.requests.size}, located ${located}`,
      );
    }
  }
}

export type { SimRequest };

/** The mechanics' own knobs, then the settings the run starts with (a snapshot's knobs in force), checked like a plan's. */
function startingKnobs(opts: SimOptions): Knobs {
  const knobs = initialKnobs(opts.mechanics);
  if (opts.initialKnobs) {
    const parsed = PlanKnobsSchema.safeParse(opts.initialKnobs);
    if (!parsed.success) throw new RangeError(`initialKnobs: ${parsed.error.issues[0]!.message}`);
    applyPlanKnobs(knobs, { roles: [], ...parsed.data });
  }
  return knobs;
}
