import { Rng } from '../common/rng.js';
import { SimulationInvariantError } from '../common/errors.js';
import type { SimRequest, WorkloadEvent, WorkloadSource } from '../workload/types.js';
import { EventQueue } from './event-queue.js';
import type { IterationModelView, NodeHardware } from './hardware.js';
import { KvDirectory, MAX_NODES } from './kv/index.js';
import type { Mechanics } from './mechanics.js';
import { MetricsRecorder, type SimMetrics, type SliceMetrics, type TransitionRecord } from './metrics.js';
import { SimNode } from './node.js';
import type { PolicyCtx, PolicyHook } from './policy-hook.js';
import { BLOCK_TOKENS, RequestState } from './request-state.js';
import { chooseDecode, packDecode, type DecodeRouterState } from './routing/decode.js';
import { choosePrefill, forgetBranch, type PrefillRouterState } from './routing/prefill.js';
import { placementOn } from './routing/prefix.js';
import { prefillIterations } from './prefill-chunks.js';
import { formatSplit, type Role } from './split.js';
import { buildPolicyCtx } from './cluster-view.js';
import type { MembershipChange } from './membership.js';
import { ClusterLearning, givenLearningResult, type LearningResult, type OnlineLearningOptions } from './learning/index.js';

export interface SimOptions {
  /** One entry per node. */
  hardware: readonly NodeHardware[];
  /** Initial role of every node. */
  roles: readonly Role[];
  mechanics: Mechanics;
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
  /** Every plan a policy produced: when it was decided, when it applies, which nodes it changes. */
  plans: { decidedAt: number; appliesAt: number; changedNodes: number[] }[];
}

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

type SimEvent =
  | { type: 'membership'; at: number; rank: 0; seq: number; change: MembershipChange }
  | { type: 'decode'; at: number; rank: 1; seq: number; node: number; token: number }
  | { type: 'prefill-done'; at: number; rank: 2; seq: number; node: number; generation: number }
  | { type: 'fetch-done'; at: number; rank: 3; seq: number; node: number; generation: number }
  | { type: 'transfer-done'; at: number; rank: 4; seq: number; node: number; rs: RequestState }
  | { type: 'restart-done'; at: number; rank: 5; seq: number; node: number; generation: number }
  | { type: 'workload'; at: number; rank: 6; seq: number; event: WorkloadEvent }
  | { type: 'plan'; at: number; rank: 7; seq: number; roles: Role[] }
  | { type: 'learn'; at: number; rank: 8; seq: number; deadline: boolean }
  | { type: 'monitor'; at: number; rank: 9; seq: number };

/**
 * The discrete-event cluster simulator (design section 3). Every handler is a
 * state transition on the cluster: it mutates the state it owns and schedules
 * the follow-up events, never reads a clock or Math.random, so the same seed
 * and inputs give the same run.
 */
export class Simulator {
  private readonly queue = new EventQueue<SimEvent>();
  private readonly nodes: SimNode[];
  private readonly kv: KvDirectory;
  private readonly rng: Rng;
  private readonly metrics: MetricsRecorder;
  private readonly requests = new Map<number, RequestState>();
  private readonly pendingPrefill: RequestState[] = [];
  private readonly pendingDecode: RequestState[] = [];
  private readonly prefillRouter: PrefillRouterState = { sessionNode: new Map() };
  private readonly decodeRouter: DecodeRouterState = { nextRoundRobin: 0 };
  private endSeconds: number;
  private pendingWorkloadEvents = 0;
  private readonly monitorStep: number;
  private desiredRoles: Role[];
  private readonly membershipLog: MembershipChange[] = [];
  private lastRescheduleAt: number | null = null;
  private now = 0;
  private events = 0;
  private prefillNodeSeconds = 0;
  private prefillComputeSeconds = 0;
  /** Online learning of the engine's iteration-time model (null with learning 'given'). */
  private readonly learning: ClusterLearning | null = null;
  /** Every node serves both phases (the learning phase at the start of the warm-up). */
  private collocating = false;
  private collocatedUntil: number | null = null;
  private readonly policyStats: PolicyStats = { calls: 0, reschedules: 0, plansApplied: 0, failures: [], cpuSeconds: 0, scoredCpuSeconds: 0, delaySeconds: 0, nodesSwitched: 0, plans: [] };

  constructor(private readonly opts: SimOptions) {
    if (opts.hardware.length !== opts.roles.length) throw new SimulationInvariantError('one hardware entry per node is required');
    if (opts.hardware.length > MAX_NODES) throw new SimulationInvariantError(`at most ${MAX_NODES} nodes are supported`);
    this.rng = Rng.derive(opts.seed, 'sim');
    this.endSeconds = opts.warmupSeconds + opts.scoredSeconds;
    this.monitorStep = opts.monitorStepSeconds ?? 5;
    this.desiredRoles = [...opts.roles];
    if ((opts.learning ?? 'online') === 'online') this.learning = new ClusterLearning(opts.hardware, opts.learningOptions);
    this.nodes = opts.hardware.map((hw, id) => {
      // Decode noise is drawn once per batch epoch: between two batch changes the iteration time is constant.
      const iterTime = (b: number, ctx: number): number => {
        const seconds = hw.truth.decodeTime(b, ctx);
        this.learning?.decode(hw, this.now, b, ctx, seconds);
        return seconds;
      };
      return new SimNode(id, hw, opts.roles[id]!, iterTime, this.engineFor(hw, id));
    });
    this.kv = new KvDirectory({
      nodeCount: this.nodes.length,
      l1CapacityBlocks: opts.hardware.map((h) => h.l1Blocks),
      l2CapacityBlocks: opts.hardware.map((h) => h.l2Blocks),
      eviction: opts.mechanics.eviction,
    });
    this.metrics = new MetricsRecorder(opts.warmupSeconds, this.endSeconds, opts.sliceSeconds ?? 60, opts.hardware[0]!.tokensPerDecodeIteration);
  }

  private started = false;
  private finished = false;

  /** Runs the whole simulation: start, advance to the end, finish. */
  run(): SimResult {
    this.advanceTo(Infinity);
    return this.finish();
  }

  /** Simulated seconds reached so far. */
  get time(): number {
    return this.now;
  }

  /** True while every node serves both phases so that the engine can learn its iteration-time model. */
  get learningPhase(): boolean {
    return this.collocating;
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
    const { opts } = this;
    if (!this.started) this.begin();
    if (this.finished) return false;
    for (;;) {
      const next = this.queue.peek();
      if (!next || next.at > this.endSeconds) {
        this.finished = true;
        break;
      }
      if (next.at > t) break;
      const ev = this.queue.pop()!;
      if (opts.stopWhenDrained && ev.at > opts.warmupSeconds && this.requests.size === 0 && this.pendingWorkloadEvents === 0) {
        this.endSeconds = this.now;
        this.metrics.endSeconds = this.now;
        this.finished = true;
        break;
      }
      this.now = ev.at;
      this.events++;
      this.dispatch(ev);
      if (opts.onProgress && this.now >= this.nextProgress) {
        opts.onProgress(this.now);
        this.nextProgress = this.now + 60;
      }
    }
    if (!this.finished && t !== Infinity && t > this.now) this.now = Math.min(t, this.endSeconds);
    return !this.finished;
  }

  /** Slices completed so far (live metrics for a status line). */
  completedSlices(count: number): SliceMetrics[] {
    return this.metrics.recentSlices(this.now, count);
  }

  /** Ends the run (at the end time, or now if stopped early) and returns the result. */
  finish(): SimResult {
    if (!this.started) this.begin();
    if (!this.finished) {
      // Stopped early (the data plane ended before the configured end): the run ends now.
      this.endSeconds = this.now;
      this.metrics.endSeconds = this.now;
      this.finished = true;
    }
    this.now = this.endSeconds;
    this.checkConservation();
    const idle = this.prefillNodeSeconds > 0 ? 100 * (1 - Math.min(1, this.prefillComputeSeconds / this.prefillNodeSeconds)) : 0;
    return {
      metrics: this.metrics.finalize(this.requests.size, idle),
      slices: this.metrics.allSlices(),
      transitions: this.metrics.transitions,
      splitTimeline: this.metrics.splitTimeline,
      finalSplit: this.currentSplit(),
      policy: this.policyStats,
      simSeconds: this.endSeconds,
      events: this.events,
      kv: this.kv.stats(),
      learning: this.learning ? this.learning.result(this.collocatedUntil) : givenLearningResult(),
    };
  }

  private nextProgress = 0;

  private begin(): void {
    const { opts } = this;
    this.started = true;
    this.metrics.split(0, this.currentSplit());
    for (const ev of opts.source.start()) this.scheduleWorkload(ev);
    for (const change of opts.membership ?? []) this.push({ type: 'membership', at: change.at, rank: 0, seq: 0, change });
    if (this.learning) this.beginLearning(this.learning.learner.windowSeconds);
    this.push({ type: 'monitor', at: 0, rank: 9, seq: 0 });
  }

  private push(ev: SimEvent): void {
    this.queue.push(ev);
  }

  private dispatch(ev: SimEvent): void {
    switch (ev.type) {
      case 'workload':
        return this.onWorkload(ev.event);
      case 'prefill-done':
        if (ev.generation === this.nodes[ev.node]!.generation) this.onPrefillDone(this.nodes[ev.node]!);
        return;
      case 'fetch-done':
        if (ev.generation === this.nodes[ev.node]!.generation) this.tryStartPrefill(this.nodes[ev.node]!);
        return;
      case 'transfer-done':
        return this.onTransferDone(this.nodes[ev.node]!, ev.rs);
      case 'decode':
        if (ev.token === this.nodes[ev.node]!.decodeTimerToken) this.onDecodeStep(this.nodes[ev.node]!);
        return;
      case 'restart-done':
        if (ev.generation === this.nodes[ev.node]!.generation) this.finishTransition(this.nodes[ev.node]!);
        return;
      case 'membership':
        return ev.change.event === 'down' ? this.nodeDown(this.nodes[ev.change.node]!, ev.change) : this.nodeUp(this.nodes[ev.change.node]!, ev.change);
      case 'plan':
        return this.applyPlan(ev.roles);
      case 'learn':
        return this.onLearn(ev.deadline);
      case 'monitor':
        return this.onMonitor();
    }
  }

  // ---- workload ---------------------------------------------------------

  private scheduleWorkload(event: WorkloadEvent): void {
    this.pendingWorkloadEvents++;
    this.push({ type: 'workload', at: Math.max(event.at, this.now), rank: 6, seq: 0, event });
  }

  private onWorkload(event: WorkloadEvent): void {
    this.pendingWorkloadEvents--;
    switch (event.kind) {
      case 'request': {
        const rs = new RequestState(event.request, this.now);
        this.requests.set(event.request.id, rs);
        this.metrics.arrival(this.now);
        this.routePrefill(rs);
        return;
      }
      case 'branch-end':
        this.kv.endBranch(event.branch);
        forgetBranch(this.prefillRouter, event.branch);
        return;
      case 'wake':
        for (const ev of this.opts.source.onWake(event.token, this.now)) this.scheduleWorkload(ev);
        return;
    }
  }

  // ---- prefill ----------------------------------------------------------

  private routePrefill(rs: RequestState): void {
    const candidates = this.nodes.filter((n) => n.acceptsPrefill);
    if (candidates.length === 0) {
      rs.phase = 'pending-prefill';
      this.pendingPrefill.push(rs);
      return;
    }
    const match = this.kv.match(rs.req.blocks);
    const shared = this.opts.mechanics.pool === 'shared';
    const placements = candidates.map((n) => placementOn(n, rs, match, shared));
    const chosen = choosePrefill(this.opts.mechanics.prefillRouting, rs, placements, this.now, this.prefillRouter);
    const node = chosen.node;
    rs.phase = 'prefill-queue';
    rs.prefillNode = node.id;
    rs.enqueuedAt = this.now;
    rs.hitBlocks = chosen.hitBlocks;
    rs.gpuBlocks = chosen.gpuBlocks;
    rs.restoredBlocks = chosen.restoredBlocks;
    rs.fetchedBlocks = chosen.fetchedBlocks;
    rs.idealBlocks = match.ideal;
    rs.fetchSeconds = chosen.fetchSeconds;
    rs.predictedPrefill = chosen.predictedPrefill;
    node.prefillQueue.push(rs);
    node.queuedPredictedSeconds += rs.predictedPrefill;
    node.activeBlocks += rs.req.blocks.length;
    if (this.opts.mechanics.fetch === 'async' && rs.fetchSeconds > 0) {
      // The fetch runs while the request waits in the queue.
      rs.fetchReadyAt = this.now + rs.fetchSeconds;
      this.push({ type: 'fetch-done', at: rs.fetchReadyAt, rank: 3, seq: 0, node: node.id, generation: node.generation });
    } else {
      rs.fetchReadyAt = this.now;
    }
    this.tryStartPrefill(node);
  }

  /** Start the next prefill iteration on an idle prefill node: queued requests whose fetch is done, FIFO, up to the token budget. */
  private tryStartPrefill(node: SimNode): void {
    if (node.prefillRunning.length > 0 || !node.servesPrefill || node.status !== 'active') return;
    const atStart = this.opts.mechanics.fetch === 'at-start';
    const batch: RequestState[] = [];
    let budget = node.hw.maxPrefillBatchTokens;
    for (let i = 0; i < node.prefillQueue.length; ) {
      const rs = node.prefillQueue[i]!;
      const ready = atStart || rs.fetchReadyAt <= this.now;
      const fits = batch.length === 0 || rs.uncachedTokens <= budget;
      if (ready && fits) {
        batch.push(rs);
        budget -= rs.uncachedTokens;
        node.prefillQueue.splice(i, 1);
        if (budget <= 0) break;
      } else {
        i++;
      }
    }
    if (batch.length === 0) return;
    let fetchWait = 0;
    for (const rs of batch) {
      node.queuedPredictedSeconds -= rs.predictedPrefill;
      rs.phase = 'prefill-run';
      rs.prefillStart = this.now;
      if (atStart) fetchWait = Math.max(fetchWait, rs.fetchSeconds);
    }
    if (node.prefillQueue.length === 0) node.queuedPredictedSeconds = 0;
    const work = batch.map((rs) => ({ uncachedTokens: rs.uncachedTokens, cachedTokens: rs.hitTokens, restoredTokens: Math.min(rs.hitTokens, rs.restoredBlocks * BLOCK_TOKENS) }));
    // A prompt longer than the iteration budget runs alone as chunked prefill, one iteration per chunk.
    let compute = 0;
    for (const iteration of prefillIterations(work, node.hw.maxPrefillBatchTokens)) {
      const seconds = node.hw.truth.prefillTime(iteration);
      compute += seconds;
      this.learning?.prefill(node.hw, this.now, iteration, seconds);
    }
    node.prefillRunning = batch;
    node.prefillBatchStartedAt = this.now;
    node.prefillBusyUntil = this.now + fetchWait + compute;
    if (this.now >= this.opts.warmupSeconds && this.now < this.endSeconds) this.prefillComputeSeconds += compute;
    this.push({ type: 'prefill-done', at: node.prefillBusyUntil, rank: 2, seq: 0, node: node.id, generation: node.generation });
  }

  private onPrefillDone(node: SimNode): void {
    const batch = node.prefillRunning;
    node.prefillRunning = [];
    for (const rs of batch) {
      node.activeBlocks -= rs.req.blocks.length;
      this.kv.admitPrefill(node.id, rs.req.branch, rs.req.blocks, this.now);
      if (rs.firstTokenAt < 0) rs.firstTokenAt = this.now;
      if (rs.req.outputTokens <= 1) this.complete(rs, node);
      else this.routeDecode(rs, node);
    }
    if (node.status === 'switching') this.maybeFinishSwitch(node);
    else this.tryStartPrefill(node);
  }

  // ---- decode -----------------------------------------------------------

  private routeDecode(rs: RequestState, from: SimNode): void {
    const candidates = this.nodes.filter((n) => n.acceptsDecode);
    if (candidates.length === 0) {
      rs.phase = 'pending-decode';
      this.pendingDecode.push(rs);
      return;
    }
    // While the engine learns, decodes of a kind are packed so that it sees the whole range of batch sizes.
    const target = this.collocating ? packDecode(candidates, from.hw.kind) : chooseDecode(this.opts.mechanics.decodeRouting, candidates, this.decodeRouter);
    rs.phase = 'transfer';
    rs.decodeNode = target.id;
    target.inboundTransfers++;
    const seconds = target.id === from.id ? 0 : from.hw.transferSeconds(rs.req.inputTokens);
    this.push({ type: 'transfer-done', at: this.now + seconds, rank: 4, seq: 0, node: target.id, rs });
  }

  private onTransferDone(node: SimNode, rs: RequestState): void {
    node.inboundTransfers--;
    if (rs.phase !== 'transfer') return; // the request was restarted meanwhile
    if (!node.acceptsDecode) {
      // The node failed or started switching while the KV was in flight: send it elsewhere.
      this.routeDecode(rs, node);
      if (node.status === 'switching') this.maybeFinishSwitch(node);
      return;
    }
    rs.phase = 'decode';
    rs.decodeStart = this.now;
    // The prompt's KV arrives GPU-to-GPU and lives with the running request;
    // it is already in the pool on its prefill node, so the decode node does
    // not cache it again. Decode nodes only write to the pool what they
    // produce (see complete()), and hold their branch's count on that.
    
    node.decodeRequests.set(rs.req.id, rs);
    node.decode.join(this.now, rs.req.id, rs.req.outputTokens - 1, rs.contextTokens);
    this.armDecodeTimer(node);
  }

  private armDecodeTimer(node: SimNode): void {
    const at = node.decode.nextEventTime();
    if (at === node.decodeTimerAt) return;
    node.decodeTimerToken++;
    node.decodeTimerAt = at;
    if (Number.isFinite(at)) this.push({ type: 'decode', at: Math.max(at, this.now), rank: 1, seq: 0, node: node.id, token: node.decodeTimerToken });
  }

  private onDecodeStep(node: SimNode): void {
    node.decodeTimerAt = Infinity;
    for (const { id } of node.decode.advance(this.now)) {
      const rs = node.decodeRequests.get(id)!;
      node.decodeRequests.delete(id);
      this.complete(rs, node);
    }
    this.armDecodeTimer(node);
    if (node.status === 'switching') this.maybeFinishSwitch(node);
  }

  private complete(rs: RequestState, node: SimNode): void {
    rs.phase = 'done';
    rs.finishedAt = this.now;
    if (rs.req.producedBlocks.length > 0) this.kv.addProduced(node.id, rs.req.branch, rs.req.producedBlocks, this.now);
    this.requests.delete(rs.req.id);
    this.metrics.completion(rs, this.now);
    for (const ev of this.opts.source.onComplete(rs.req.id, this.now)) this.scheduleWorkload(ev);
  }

  // ---- plans and role transitions ----------------------------------------

  private currentSplit(): string {
    return formatSplit(this.nodes.filter((n) => n.up).map((n) => n.targetRole));
  }

  private applyPlan(roles: Role[]): void {
    if (!this.planIsServable(roles)) {
      this.recordFailure('invalid-plan', 'plan leaves no prefill or no decode node among the nodes that are up');
      return;
    }
    this.policyStats.plansApplied++;
    this.desiredRoles = [...roles];
    this.reconcile();
  }

  private planIsServable(roles: readonly Role[]): boolean {
    if (roles.length !== this.nodes.length) return false;
    const up = this.nodes.filter((n) => n.status !== 'down');
    return up.some((n) => roles[n.id] === 'P') && up.some((n) => roles[n.id] === 'D');
  }

  /** Start a switch on every serving node whose role differs from the desired one. */
  private reconcile(): void {
    // Role changes wait for the end of the learning phase (every node serves both phases until then).
    for (const node of this.collocating ? [] : this.nodes) {
      if (node.status === 'active' && node.role !== this.desiredRoles[node.id]) this.startSwitch(node, this.desiredRoles[node.id]!);
    }
    this.metrics.split(this.now, this.currentSplit());
  }

  private startSwitch(node: SimNode, to: Role): void {
    node.status = 'switching';
    node.targetRole = to;
    node.switchStartedAt = this.now;
    this.policyStats.nodesSwitched++;
    this.metrics.transitions.push({ node: node.id, from: node.role, to, start: this.now, end: null, kind: this.opts.mechanics.transition });
    // Pending (queued) requests move to nodes of the same phase; running ones finish in place.
    if (node.role === 'P') {
      const moved = node.prefillQueue.splice(0);
      node.queuedPredictedSeconds = 0;
      for (const rs of moved) {
        node.activeBlocks -= rs.req.blocks.length;
        this.routePrefill(rs);
      }
    } else {
      for (const id of node.decode.takeWaiting()) {
        const rs = node.decodeRequests.get(id)!;
        node.decodeRequests.delete(id);
        this.routeDecode(rs, node);
      }
      this.armDecodeTimer(node);
    }
    this.maybeFinishSwitch(node);
  }

  private maybeFinishSwitch(node: SimNode): void {
    if (node.status !== 'switching') return;
    const drained = node.role === 'P' ? node.prefillRunning.length === 0 : node.decode.size === 0 && node.inboundTransfers === 0;
    if (!drained) return;
    if (this.opts.mechanics.transition === 'restart') {
      node.status = 'restarting';
      this.kv.clearNode(node.id);
      const seconds = node.hw.restartSeconds(this.rng.next());
      this.push({ type: 'restart-done', at: this.now + seconds, rank: 5, seq: 0, node: node.id, generation: node.generation });
      return;
    }
    if (node.role === 'D') this.kv.clearGpu(node.id); // D->P empties KV; P->D keeps it
    this.finishTransition(node);
  }

  private finishTransition(node: SimNode): void {
    node.role = node.targetRole;
    node.status = 'active';
    const rec = findLast(this.metrics.transitions, (t) => t.node === node.id && t.end === null);
    if (rec) rec.end = this.now;
    this.afterCapacityChange();
  }

  /** A node became able to serve: drain the cluster-level queues, then re-check the plan. */
  private afterCapacityChange(): void {
    if (this.pendingPrefill.length && this.nodes.some((n) => n.acceptsPrefill)) {
      for (const rs of this.pendingPrefill.splice(0)) this.routePrefill(rs);
    }
    if (this.pendingDecode.length && this.nodes.some((n) => n.acceptsDecode)) {
      for (const rs of this.pendingDecode.splice(0)) this.routeDecode(rs, this.nodes[rs.prefillNode]!);
    }
    this.reconcile();
    for (const n of this.nodes) this.tryStartPrefill(n);
  }

  // ---- membership (elastic scenarios) --------------------------------------

  private nodeDown(node: SimNode, change: MembershipChange): void {
    if (node.status === 'down') return;
    this.membershipLog.push(change);
    const wasSwitching = node.status === 'switching' || node.status === 'restarting';
    node.status = 'down';
    node.generation++;
    node.decodeTimerToken++;
    node.decodeTimerAt = Infinity;
    if (wasSwitching) {
      const rec = findLast(this.metrics.transitions, (t) => t.node === node.id && t.end === null);
      if (rec) rec.end = this.now;
    }
    // Everything on the node restarts from scratch elsewhere: its KV is gone.
    const lost: RequestState[] = [...node.prefillRunning, ...node.prefillQueue, ...node.decodeRequests.values()];
    node.prefillRunning = [];
    node.prefillQueue.length = 0;
    node.queuedPredictedSeconds = 0;
    node.activeBlocks = 0;
    node.decodeRequests.clear();
    node.decode.clear();
    this.kv.clearNode(node.id);
    node.role = node.targetRole;
    this.keepBothPhases();
    for (const rs of lost) {
      rs.restarts++;
      this.routePrefill(rs);
    }
    this.metrics.split(this.now, this.currentSplit());
  }

  private nodeUp(node: SimNode, change: MembershipChange): void {
    if (node.status !== 'down') return;
    this.membershipLog.push(change);
    node.status = 'active';
    node.role = node.targetRole = this.desiredRoles[node.id]!;
    this.afterCapacityChange();
  }

  /**
   * A failure must not leave a phase without any node: the data plane then
   * flips the least-loaded node of the other phase, whatever the policy says,
   * so that no request waits forever.
   */
  private keepBothPhases(): void {
    for (const phase of ['P', 'D'] as const) {
      const up = this.nodes.filter((n) => n.status !== 'down');
      if (up.length < 2 || up.some((n) => this.desiredRoles[n.id] === phase)) continue;
      const donor = up.reduce((a, b) => (load(b) < load(a) ? b : a));
      this.desiredRoles[donor.id] = phase;
    }
    this.reconcile();
  }

  // ---- monitoring and the policy ------------------------------------------

  private onMonitor(): void {
    const t = this.now;
    let pq = 0;
    let dq = 0;
    let pNodes = 0;
    for (const n of this.nodes) {
      if (n.acceptsPrefill) {
        pNodes++;
        pq += n.prefillQueue.length;
      }
      if (n.servesDecode && n.up) dq += n.decode.waiting + n.decode.size;
    }
    pq += this.pendingPrefill.length;
    dq += this.pendingDecode.length;
    this.metrics.queues(t, pq, dq);
    if (t >= this.opts.warmupSeconds && t < this.endSeconds) this.prefillNodeSeconds += pNodes * this.monitorStep;
    if (this.opts.policy) this.consultPolicy(this.opts.policy);
    this.push({ type: 'monitor', at: t + this.monitorStep, rank: 9, seq: 0 });
  }

  private consultPolicy(policy: PolicyHook): void {
    const ctx = this.buildCtx();
    this.policyStats.calls++;
    const should = policy.shouldReschedule(ctx);
    this.chargePolicy(should.cpuSeconds);
    if (!should.ok) return this.recordFailure(should.failure.kind, should.failure.message);
    if (!should.value) return;
    const plan = policy.schedule(ctx);
    this.chargePolicy(plan.cpuSeconds);
    this.policyStats.reschedules++;
    this.lastRescheduleAt = this.now;
    this.membershipLog.length = 0;
    if (!plan.ok) return this.recordFailure(plan.failure.kind, plan.failure.message);
    // The plan takes effect once the policy has finished computing it: serving goes on under the old plan meanwhile.
    const delay = should.cpuSeconds + plan.cpuSeconds;
    this.policyStats.delaySeconds += delay;
    const changedNodes = this.nodes.filter((n) => n.status !== 'down' && plan.value.roles[n.id] !== undefined && plan.value.roles[n.id] !== this.desiredRoles[n.id]).map((n) => n.id);
    this.policyStats.plans.push({ decidedAt: this.now, appliesAt: this.now + delay, changedNodes });
    this.push({ type: 'plan', at: this.now + delay, rank: 7, seq: 0, roles: [...plan.value.roles] });
  }

  private chargePolicy(cpuSeconds: number): void {
    this.policyStats.cpuSeconds += cpuSeconds;
    if (this.now >= this.opts.warmupSeconds) this.policyStats.scoredCpuSeconds += cpuSeconds;
  }

  private recordFailure(kind: string, message: string): void {
    const f = this.policyStats.failures.find((x) => x.kind === kind);
    if (f) f.count++;
    else this.policyStats.failures.push({ kind, count: 1, firstMessage: message });
  }

  /** Blocks the node's prefix cache holds in a tier (1 = GPU, 2 = host). */
  cachedBlocks(node: number, tier: 1 | 2): number {
    return this.kv.used(node, tier);
  }

  buildCtx(): PolicyCtx {
    return buildPolicyCtx({
      now: this.now,
      seed: this.opts.seed,
      desiredRoles: this.desiredRoles,
      nodes: this.nodes,
      kv: this.kv,
      slices: this.metrics.recentSlices(this.now, this.opts.windowSlices ?? 10),
      sliceSeconds: this.opts.sliceSeconds ?? 60,
      model: this.learning ? this.learning.policyModel() : (this.opts.policyModel ?? { byKind: {} }),
      transitions: this.metrics.transitions.slice(-20),
      membership: this.membershipLog,
      lastRescheduleAt: this.lastRescheduleAt,
    });
  }

  // ---- the learning phase -------------------------------------------------------

  private engineFor(hw: NodeHardware, id: number): IterationModelView {
    if (this.learning) return this.learning.engineOf(hw);
    if (!hw.engine) throw new SimulationInvariantError(`node ${id}: learning 'given' needs hw.engine`);
    return hw.engine;
  }

  private beginLearning(windowSeconds: number): void {
    const { opts } = this;
    if ((opts.learningOptions?.collocate ?? true) && opts.warmupSeconds > 0) {
      this.collocating = true;
      for (const n of this.nodes) n.bothPhases = true;
      // The learning phase ends at convergence, and at the latest with the warm-up.
      this.push({ type: 'learn', at: opts.warmupSeconds, rank: 8, seq: 0, deadline: true });
    }
    this.push({ type: 'learn', at: windowSeconds, rank: 8, seq: 0, deadline: false });
  }

  /** A fitting window ended (refit, maybe converge), or the warm-up did (the learning phase ends whatever the fit). */
  private onLearn(deadline: boolean): void {
    const learner = this.learning!.learner;
    if (!deadline && !learner.allConverged) {
      learner.closeWindow(this.now);
      if (!learner.allConverged) this.push({ type: 'learn', at: this.now + learner.windowSeconds, rank: 8, seq: 0, deadline: false });
    }
    if (this.collocating && (deadline || learner.allConverged)) this.endCollocation();
  }

  /**
   * Back to the configured roles: each node stops taking work of the phase it
   * does not serve; what it holds of that phase and has not started moves to
   * nodes of that phase, what is running finishes in place (as in a
   * symmetric role switch, but nothing else changes: the KV stays). Plans a
   * policy made meanwhile take effect now.
   */
  private endCollocation(): void {
    this.collocating = false;
    this.collocatedUntil = this.now;
    for (const node of this.nodes) node.bothPhases = false;
    for (const node of this.nodes) {
      if (!node.up) continue;
      if (node.role === 'P') {
        for (const id of node.decode.takeWaiting()) {
          const rs = node.decodeRequests.get(id)!;
          node.decodeRequests.delete(id);
          this.routeDecode(rs, node);
        }
        this.armDecodeTimer(node);
      } else {
        const moved = node.prefillQueue.splice(0);
        node.queuedPredictedSeconds = 0;
        for (const rs of moved) {
          node.activeBlocks -= rs.req.blocks.length;
          this.routePrefill(rs);
        }
      }
    }
    this.afterCapacityChange();
  }

  // ---- invariants ----------------------------------------------------------

  /** Every request that arrived is completed or still somewhere in the cluster. */
  private checkConservation(): void {
    let located = this.pendingPrefill.length + this.pendingDecode.length;
    for (const n of this.nodes) located += n.prefillQueue.length + n.prefillRunning.length + n.decodeRequests.size;
    for (const rs of this.requests.values()) if (rs.phase === 'transfer') located++;
    if (located !== this.requests.size || this.metrics.arrived !== this.metrics.completed + this.requests.size) {
      throw new SimulationInvariantError(
        `request conservation broken: arrived ${this.metrics.arrived}, completed ${this.metrics.completed}, in flight ${this.requests.size}, located ${located}`,
      );
    }
  }
}

function load(n: SimNode): number {
  return n.prefillLoad + n.decodeLoad;
}

function findLast<T>(items: T[], pred: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (pred(items[i]!)) return items[i];
  return undefined;
}

export type { SimRequest };
