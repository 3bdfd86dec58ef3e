import type { SimRequest, WorkloadEvent, WorkloadSource } from '../workload/index.js';
import { EventHeap } from '../workload/event-heap.js';

/** A request as the data plane saw it emitted, with the completion that released it. */
export interface RecordedRequest {
  /** Emission order across the whole run: ties at equal times keep it. */
  readonly seq: number;
  /** Arrival time in the simulator (simulated seconds). */
  readonly at: number;
  readonly request: SimRequest;
  /**
   * The request whose completion released this one (it was returned by
   * `onComplete(releasedBy, releasedAt)`), or null when it was released by
   * the clock (`start` or a `wake`: open loop, or a trace's timed request).
   */
  readonly releasedBy: number | null;
  readonly releasedAt: number | null;
}

/** A branch that ended when a request completed (the harness released its KV references). */
export interface RecordedEnd {
  readonly seq: number;
  readonly at: number;
  readonly branch: number;
  /** The completed request that ended it (its last one). */
  readonly after: number;
}

/** What arrived in an interval: requests and branch ends, in (time, emission) order. */
export interface Arrived {
  requests: RecordedRequest[];
  ends: RecordedEnd[];
}

type Pending = { kind: 'request'; rec: RecordedRequest } | { kind: 'end'; rec: RecordedEnd };

/**
 * A decorator around a WorkloadSource that records what the source emits,
 * as it is emitted, without changing it: the simulator sees exactly the
 * events the inner source returns. Events are held until they are due
 * (a trace source releases requests up to a minute ahead; a tool wait puts a
 * request seconds ahead) and handed out by arrival time with `takeArrived`,
 * so that each monitoring step records what arrived during it.
 *
 * Cost on the serving path: one heap push per request or branch end; the
 * request objects are kept by reference, not copied.
 */
export class RecordingSource implements WorkloadSource {
  private readonly pending = new EventHeap<Pending>();
  private seq = 0;
  private emitted = 0;
  private completed = 0;
  private taken = 0;

  constructor(private readonly inner: WorkloadSource) {}

  get name(): string {
    return this.inner.name;
  }

  get model(): string {
    return this.inner.model;
  }

  /** Requests the source has emitted so far (some may not have arrived yet). */
  get requestsEmitted(): number {
    return this.emitted;
  }

  /** Completions the simulator reported so far. */
  get completions(): number {
    return this.completed;
  }

  /** Requests handed out by takeArrived so far. */
  get requestsTaken(): number {
    return this.taken;
  }

  start(): WorkloadEvent[] {
    const events = this.inner.start();
    this.record(events, null, 0);
    return events;
  }

  onComplete(requestId: number, now: number): WorkloadEvent[] {
    this.completed++;
    const events = this.inner.onComplete(requestId, now);
    this.record(events, requestId, now);
    return events;
  }

  takeRetired(): Array<[number, number]> {
    return this.inner.takeRetired?.() ?? [];
  }

  onWake(token: number, now: number): WorkloadEvent[] {
    const events = this.inner.onWake(token, now);
    this.record(events, null, now);
    return events;
  }

  /**
   * Remove and return what arrived before `until` (or at it, with
   * `inclusive`), in arrival order. The simulator processes an event at
   * max(at, now), which is what `at` holds here.
   */
  takeArrived(until: number, inclusive = false): Arrived {
    const out: Arrived = { requests: [], ends: [] };
    for (;;) {
      const t = this.pending.peekTime();
      if (!(t < until || (inclusive && t === until))) break;
      const { item } = this.pending.pop()!;
      if (item.kind === 'request') {
        out.requests.push(item.rec);
        this.taken++;
      } else {
        out.ends.push(item.rec);
      }
    }
    return out;
  }

  private record(events: readonly WorkloadEvent[], releasedBy: number | null, now: number): void {
    for (const e of events) {
      const at = Math.max(e.at, now);
      if (e.kind === 'request') {
        this.emitted++;
        const rec: RecordedRequest = { seq: this.seq++, at, request: e.request, releasedBy, releasedAt: releasedBy === null ? null : now };
        this.pending.push(at, { kind: 'request', rec });
      } else if (e.kind === 'branch-end' && releasedBy !== null) {
        const rec: RecordedEnd = { seq: this.seq++, at, branch: e.branch, after: releasedBy };
        this.pending.push(at, { kind: 'end', rec });
      }
      // Wakes are the source's own business: a replay of the recording does not need them.
    }
  }
}
