import type { IterationModelView, NodeHardware } from './hardware.js';
import type { RequestState } from './request-state.js';
import type { Role } from './split.js';
import { DecodeBatch } from './perf/decode-batch.js';
import { DECODE_KV_RESERVE_TOKENS } from './perf/decode-kv.js';

export type NodeStatus = 'active' | 'switching' | 'down' | 'restarting';

/**
 * Bumped whenever any node's status, role or bothPhases changes, i.e.
 * whenever which nodes accept prefill or decode may have changed: routing
 * keeps the lists of accepting nodes (routing/candidates.ts) until it moves.
 */
export const acceptance = { epoch: 0 };

/** One node's runtime state. The simulator mutates it; routing reads it. */
export class SimNode {
  private statusNow: NodeStatus = 'active';
  private roleNow: Role;
  private both = false;
  /** Role being switched to (equals role when not switching). */
  targetRole: Role;
  /** Bumped when the node fails, so that its pending events are ignored. */
  generation = 0;

  get status(): NodeStatus {
    return this.statusNow;
  }
  set status(v: NodeStatus) {
    this.statusNow = v;
    acceptance.epoch++;
  }
  /** Role now (while switching: the role being left). */
  get role(): Role {
    return this.roleNow;
  }
  set role(v: Role) {
    this.roleNow = v;
    acceptance.epoch++;
  }
  /**
   * Serves both phases whatever its role: every node does during the online
   * learning phase at the start of the warm-up, so that each node kind
   * measures prefill and decode iterations.
   */
  get bothPhases(): boolean {
    return this.both;
  }
  set bothPhases(v: boolean) {
    this.both = v;
    acceptance.epoch++;
  }

  // prefill side
  readonly prefillQueue: RequestState[] = [];
  private running: RequestState[] = [];
  private busyUntil = 0;
  private queuedSeconds = 0;
  get prefillRunning(): RequestState[] {
    return this.running;
  }
  set prefillRunning(v: RequestState[]) {
    this.running = v;
    this.waitWatch?.mark(this);
  }
  get prefillBusyUntil(): number {
    return this.busyUntil;
  }
  set prefillBusyUntil(v: number) {
    this.busyUntil = v;
    this.waitWatch?.mark(this);
  }
  /** Sum of predicted prefill seconds of queued requests (predicted-TTFT routing). */
  get queuedPredictedSeconds(): number {
    return this.queuedSeconds;
  }
  set queuedPredictedSeconds(v: number) {
    this.queuedSeconds = v;
    this.waitWatch?.mark(this);
  }
  /** Blocks of queued and running prefill requests (dynamo-kv routing's decode-block term). */
  activeBlocks = 0;

  // decode side
  readonly decode: DecodeBatch;
  private readonly decoding = new Map<number, RequestState>();
  private inbound = 0;
  /** The requests in this node's decode batch (running or waiting), by id. Changed only through the methods below, which tell the decode index. */
  get decodeRequests(): ReadonlyMap<number, RequestState> {
    return this.decoding;
  }
  addDecodeRequest(rs: RequestState): void {
    this.decoding.set(rs.req.id, rs);
    this.decodeWatch?.mark(this);
  }
  /** Removes and returns the request `id` of the decode batch (it must be there). */
  takeDecodeRequest(id: number): RequestState {
    const rs = this.decoding.get(id)!;
    this.decoding.delete(id);
    this.decodeWatch?.mark(this);
    return rs;
  }
  clearDecodeRequests(): void {
    this.decoding.clear();
    this.decodeWatch?.mark(this);
  }
  /** Transfers on their way to this node. */
  get inboundTransfers(): number {
    return this.inbound;
  }
  set inboundTransfers(v: number) {
    this.inbound = v;
    this.decodeWatch?.mark(this);
  }
  decodeTimerToken = 0;
  decodeTimerAt = Infinity;
  /** decodeSlots 'dispatch' (transitions/decode-slots.ts): request slots held on this decode node, and the requests waiting for one, FIFO. */
  slotsHeld = 0;
  readonly preallocQueue: RequestState[] = [];
  /** Routing's reusable placement object for this node (routing/prefix.ts), so that placing a request allocates nothing per node. */
  placementScratch: unknown = null;
  /** The routing index told when the prefill wait fields change (routing/wait-index.ts). */
  waitWatch: { mark(node: SimNode): void } | null = null;
  /** The same for the decode load (routing/decode-index.ts). */
  decodeWatch: { mark(node: SimNode): void } | null = null;

  constructor(
    readonly id: number,
    readonly hw: NodeHardware,
    role: Role,
    iterTime: (batchSize: number, meanContextTokens: number) => number,
    /** The engine's iteration-time model (the learned one of the node's kind, or a given one): what routing predicts with. */
    readonly engine: IterationModelView,
    /** GPU KV tokens its decode batch may hold (mechanics decodeKv 'gpu'); Infinity: unbounded. */
    decodeKvTokens = Infinity,
  ) {
    this.roleNow = role;
    this.targetRole = role;
    acceptance.epoch++;
    this.decode = new DecodeBatch({
      iterTime,
      tokensPerIteration: hw.tokensPerDecodeIteration,
      maxBatch: hw.maxDecodeBatch,
      kvCapacityTokens: decodeKvTokens,
      kvReserveTokens: Number.isFinite(decodeKvTokens) ? DECODE_KV_RESERVE_TOKENS : 0,
    });
  }

  get up(): boolean {
    return this.status === 'active' || this.status === 'switching';
  }
  /** Runs prefill iterations (its role, or both phases while learning). */
  get servesPrefill(): boolean {
    return this.role === 'P' || this.bothPhases;
  }
  get servesDecode(): boolean {
    return this.role === 'D' || this.bothPhases;
  }
  /** Can receive new prefill requests. */
  get acceptsPrefill(): boolean {
    return this.status === 'active' && this.servesPrefill;
  }
  get acceptsDecode(): boolean {
    return this.status === 'active' && this.servesDecode;
  }
  /** Outstanding prefill requests: what the load-based routers count. */
  get prefillLoad(): number {
    return this.prefillQueue.length + this.prefillRunning.length;
  }
  get decodeLoad(): number {
    return this.decoding.size + this.inbound;
  }
  /** Seconds until the running prefill batch ends, seen from `now`. */
  remainingBatchSeconds(now: number): number {
    return this.prefillRunning.length > 0 ? Math.max(0, this.prefillBusyUntil - now) : 0;
  }
}
