import { InfrastructureError, UsageError } from '../common/errors.js';
import type { Ctx, CtxMechanics, NodeState } from '../policy/index.js';
import type { Mechanics, MembershipChange, Role } from '../sim/index.js';
import type { RecordedEnd, RecordedRequest } from './recording-source.js';
import { RingBuffer } from './ring-buffer.js';

/** One node as a monitoring step left it. */
export interface NodeRecord {
  readonly state: NodeState;
  readonly role: Role;
  /** Set while the node is switching or restarting: the role it is headed to. */
  readonly targetRole?: Role;
}

/** Which policy served a step. */
export interface PolicyRef {
  readonly name: string;
  readonly candidateId: number | null;
}

/**
 * What one monitoring step recorded: the requests and branch ends that
 * arrived in [start, end), the node states and plan at `end` (after the
 * step's events), the membership changes in (previous end, end], and the
 * deployed policy. Frozen once pushed: snapshots share records, never copy
 * or change them.
 */
export interface StepRecord {
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly requests: readonly RecordedRequest[];
  readonly ends: readonly RecordedEnd[];
  readonly nodes: readonly NodeRecord[];
  readonly plan: readonly Role[];
  /** The settings in force at `end` (ctx.mechanics): a snapshot starting here replays with them. */
  readonly mechanics: CtxMechanics;
  readonly membership: readonly MembershipChange[];
  readonly policy: PolicyRef;
}

/** What a snapshot needs besides the steps: the cluster and the workload's model. */
export interface RecordingMeta {
  readonly label: string;
  /** Model profile the workload runs on (the trace header's `model`). */
  readonly model: string;
  readonly nodeKinds: readonly string[];
  readonly mechanics: Mechanics;
  readonly seed: number;
  readonly monitorStepSeconds: number;
}

/**
 * The steps a snapshot is built from, taken from the ring without copying
 * records: plain data (it can be posted to a worker), independent of the
 * ring afterwards. `base` is the step that ended where the snapshot starts:
 * its node states are the replay's initial cluster.
 */
export interface WindowCapture {
  readonly meta: RecordingMeta;
  readonly base: StepRecord;
  /** Steps after `base`, oldest first; their arrivals make up the trace. */
  readonly steps: readonly StepRecord[];
  readonly warmupSeconds: number;
  readonly windowSeconds: number;
}

export interface WindowRequest {
  /** Scored minutes: the last `windowMinutes` of what was served. */
  windowMinutes: number;
  /** Minutes before the window replayed to warm caches and the policy's window (not scored). Default 0. */
  warmupMinutes?: number;
  /**
   * The window ends this many minutes before the newest step (default 0: it
   * ends at the newest). A control-plane cycle validates on the window that
   * ended where its training window starts.
   */
  endMinutesAgo?: number;
}

/** The data plane has not served long enough for any snapshot: try again later. */
export class SnapshotNotReady extends InfrastructureError {}

const EPS = 1e-9;

/** Steps the ring keeps for `ringMinutes` of history, plus the step a window starts from. */
export function ringCapacity(ringMinutes: number, monitorStepSeconds: number): number {
  if (!(ringMinutes > 0) || !Number.isFinite(ringMinutes)) throw new UsageError(`ringMinutes must be a number > 0, got ${ringMinutes}`);
  return Math.ceil((ringMinutes * 60) / monitorStepSeconds - EPS) + 1;
}

/**
 * The fixed-size ring of step records (design section 1: "records a sliding
 * window of what it saw"). Pushing is O(1); a capture is O(steps) and copies
 * only references.
 */
export class WindowRecorder {
  private readonly ring: RingBuffer<StepRecord>;
  readonly maxSeconds: number;

  constructor(
    readonly meta: RecordingMeta,
    ringMinutes: number,
  ) {
    this.ring = new RingBuffer(ringCapacity(ringMinutes, meta.monitorStepSeconds));
    this.maxSeconds = ringMinutes * 60;
  }

  get capacity(): number {
    return this.ring.capacity;
  }

  get size(): number {
    return this.ring.size;
  }

  /** Steps recorded since the start, overwritten ones included. */
  get stepsRecorded(): number {
    return this.ring.totalPushed;
  }

  /** Seconds of history a capture can cover now. */
  get recordedSeconds(): number {
    const first = this.ring.at(0);
    const last = this.ring.last();
    return first && last ? last.end - first.end : 0;
  }

  push(record: Omit<StepRecord, 'index'>): StepRecord {
    const frozen: StepRecord = Object.freeze({
      ...record,
      index: this.ring.totalPushed,
      requests: Object.freeze(record.requests),
      ends: Object.freeze(record.ends),
      nodes: Object.freeze(record.nodes),
      plan: Object.freeze(record.plan),
      mechanics: Object.freeze(record.mechanics),
      membership: Object.freeze(record.membership),
    });
    this.ring.push(frozen);
    return frozen;
  }

  /** The records kept, oldest first. */
  records(): StepRecord[] {
    return this.ring.toArray();
  }

  /**
   * The last `warmup + window` minutes (ending at the newest step, or
   * `endMinutesAgo` before it), or as much as the ring holds: the warm-up is
   * shortened first, then the window. Throws UsageError when more than the
   * ring's history is asked for, and SnapshotNotReady when nothing has been
   * served yet (or nothing as long ago as `endMinutesAgo`).
   */
  capture(request: WindowRequest): WindowCapture {
    const windowSeconds = request.windowMinutes * 60;
    const warmupSeconds = (request.warmupMinutes ?? 0) * 60;
    const agoSeconds = (request.endMinutesAgo ?? 0) * 60;
    if (!(windowSeconds > 0) || !Number.isFinite(windowSeconds)) throw new UsageError(`windowMinutes must be a number > 0, got ${request.windowMinutes}`);
    if (!(warmupSeconds >= 0) || !Number.isFinite(warmupSeconds)) throw new UsageError(`warmupMinutes must be a number >= 0, got ${request.warmupMinutes}`);
    if (!(agoSeconds >= 0) || !Number.isFinite(agoSeconds)) throw new UsageError(`endMinutesAgo must be a number >= 0, got ${request.endMinutesAgo}`);
    if (windowSeconds + warmupSeconds + agoSeconds > this.maxSeconds + EPS) {
      throw new UsageError(
        `a snapshot of ${request.warmupMinutes ?? 0} + ${request.windowMinutes} minutes${agoSeconds > 0 ? ` ending ${request.endMinutesAgo} minutes ago` : ''} reaches further back than the ${this.maxSeconds / 60} minutes the data plane keeps (ringMinutes)`,
      );
    }
    const all = this.ring.toArray();
    const newest = all[all.length - 1];
    // The newest step that ended at or before the wanted end.
    const records = newest && agoSeconds > 0 ? all.slice(0, lastIndexAtOrBefore(all, newest.end - agoSeconds) + 1) : all;
    const last = records[records.length - 1];
    if (!last || records.length < 2 || last.end - records[0]!.end <= 0) {
      throw new SnapshotNotReady(agoSeconds > 0 ? `the data plane has not served ${request.endMinutesAgo} minutes more than a monitoring step yet: no snapshot ending that long ago` : 'the data plane has not served a monitoring step yet: no snapshot to take');
    }
    const from = last.end - windowSeconds - warmupSeconds;
    // The earliest step that ends at or after the wanted start: the snapshot covers at most what was asked.
    let b = records.findIndex((r) => r.end >= from - EPS);
    if (b === records.length - 1) b = records.length - 2;
    const base = records[b]!;
    const available = last.end - base.end;
    const window = Math.min(windowSeconds, available);
    return {
      meta: this.meta,
      base,
      steps: records.slice(b + 1),
      windowSeconds: window,
      warmupSeconds: Math.max(0, available - window),
    };
  }
}

/** Index of the last record whose end is at or before `t` (-1 if none); records are in time order. */
function lastIndexAtOrBefore(records: readonly StepRecord[], t: number): number {
  let i = records.length - 1;
  while (i >= 0 && records[i]!.end > t + EPS) i--;
  return i;
}

/** The node states of a ctx, as a step records them. */
export function nodeRecords(ctx: Pick<Ctx, 'nodes'>): NodeRecord[] {
  return ctx.nodes.map((n) => (n.targetRole !== undefined ? { state: n.state, role: n.role, targetRole: n.targetRole } : { state: n.state, role: n.role }));
}
