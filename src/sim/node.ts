import type { IterationModelView, NodeHardware } from './hardware.js';
import type { RequestState } from './request-state.js';
import type { Role } from './split.js';
import { DecodeBatch } from './perf/decode-batch.js';

export type NodeStatus = 'active' | 'switching' | 'down' | 'restarting';

/** One node's runtime state. The simulator mutates it; routing reads it. */
export class SimNode {
  status: NodeStatus = 'active';
  /** Role now (while switching: the role being left). */
  role: Role;
  /** Role being switched to (equals role when not switching). */
  targetRole: Role;
  /** Bumped when the node fails, so that its pending events are ignored. */
  generation = 0;
  /**
   * Serves both phases whatever its role: every node does during the online
   * learning phase at the start of the warm-up, so that each node kind
   * measures prefill and decode iterations.
   */
  bothPhases = false;

  // prefill side
  readonly prefillQueue: RequestState[] = [];
  prefillRunning: RequestState[] = [];
  prefillBusyUntil = 0;
  /** Sum of predicted prefill seconds of queued requests (predicted-TTFT routing). */
  queuedPredictedSeconds = 0;
  /** Blocks of queued and running prefill requests (dynamo-kv routing's decode-block term). */
  activeBlocks = 0;

  // decode side
  readonly decode: DecodeBatch;
  readonly decodeRequests = new Map<number, RequestState>();
  /** Transfers on their way to this node. */
  inboundTransfers = 0;
  decodeTimerToken = 0;
  decodeTimerAt = Infinity;
  /** Routing's reusable placement object for this node (routing/prefix.ts), so that placing a request allocates nothing per node. */
  placementScratch: unknown = null;

  constructor(
    readonly id: number,
    readonly hw: NodeHardware,
    role: Role,
    iterTime: (batchSize: number, meanContextTokens: number) => number,
    /** The engine's iteration-time model (the learned one of the node's kind, or a given one): what routing predicts with. */
    readonly engine: IterationModelView,
  ) {
    this.role = role;
    this.targetRole = role;
    this.decode = new DecodeBatch({ iterTime, tokensPerIteration: hw.tokensPerDecodeIteration, maxBatch: hw.maxDecodeBatch });
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
    return this.decodeRequests.size + this.inboundTransfers;
  }
  /** Seconds until the running prefill batch ends, seen from `now`. */
  remainingBatchSeconds(now: number): number {
    return this.prefillRunning.length > 0 ? Math.max(0, this.prefillBusyUntil - now) : 0;
  }
}
