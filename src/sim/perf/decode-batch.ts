import { SimulationInvariantError } from '../../common/errors.js';
import { DecodeKvBudget } from './decode-kv.js';
import { FinishHeap } from './finish-heap.js';

/**
 * The decode batch of one node, advanced in closed form.
 *
 * Semantics (the reference stepper in test/sim/perf follows the same rules
 * one iteration at a time, and a property test holds the two together):
 *
 * - Iterations run back to back while at least one request is running.
 * - An *epoch* is a run of iterations with the same running set. Its
 *   iteration time is `iterTime(B, meanContext)`, called exactly once when
 *   the epoch starts (so noise is drawn once per epoch), with B the running
 *   requests and meanContext their mean of context-at-join plus tokens
 *   generated so far.
 * - Every iteration gives every running request `tokensPerIteration` (t_acc)
 *   tokens; a request needing n tokens finishes at the end of its
 *   ceil(n / t_acc)-th iteration.
 * - A request that joins an idle batch starts an iteration at once. One that
 *   joins a busy batch enters at the first iteration boundary at or after its
 *   join time; joining exactly at the boundary where the current epoch began
 *   re-opens that boundary (a new epoch, a new draw), so simultaneous arrivals
 *   share a batch.
 * - At most `maxBatch` run at once; extra requests wait in FIFO order and
 *   enter at boundaries where a request finishes.
 * - Finishing, entering and removal change B, and so the iteration time,
 *   from the next boundary on: the iteration in progress keeps its time.
 * - A request with nothing to generate never enters the batch; it is reported
 *   finished at its join time.
 * - With a KV capacity (decode-kv.ts), a waiting request also needs its KV to
 *   fit (head of line: the FIFO stops at the first that does not), and at a
 *   boundary whose iteration would not fit, running requests are retracted
 *   (the latest to enter first) to the front of the waiting queue, keeping
 *   what they generated; they finish exactly once, later.
 *
 * Between two changes nothing needs simulating: the next change is at
 * boundary m of the epoch, at time start + m * iterTime, with m found from
 * the smallest finishing iteration index (a heap) and the next entry.
 *
 * Calling discipline: time never goes backwards, and join/remove at `now`
 * require every change before `now` to have been processed by advance().
 */

export interface DecodeBatchOptions {
  /** Seconds of one iteration for B running requests; called once per epoch. */
  iterTime: (batchSize: number, meanContextTokens: number) => number;
  /** t_acc: tokens each running request gains per iteration. */
  tokensPerIteration: number;
  maxBatch: number;
  /** GPU KV tokens the running requests may hold (mechanics decodeKv 'gpu'); default Infinity: unbounded. */
  kvCapacityTokens?: number;
  /** Tokens held back per running request when admitting (SGLang num_reserved_decode_tokens); default 0. */
  kvReserveTokens?: number;
}

export interface DecodeFinish {
  id: number;
  at: number;
}

/** Boundaries within this share of an iteration of a time count as at that time (float noise). */
const ITER_EPS = 1e-7;
/** n / t_acc within this of an integer counts as that integer (e.g. 29 / 2.9). */
const RATIO_EPS = 1e-9;

interface Entry {
  readonly id: number;
  readonly tokens: number;
  readonly context: number;
  /** KV tokens it holds when it enters (the prompt's, plus what it generated before a retraction). */
  readonly kv: number;
  readonly joinedAt: number;
  state: 'waiting' | 'running';
  /** Global iteration index of the boundary where it entered. */
  startIter: number;
  /** Global iteration index of the boundary where it finishes. */
  finishIter: number;
  /** Its place in the finish heap (-1: not running); the heap keeps it. */
  heapIndex: number;
}

interface Epoch {
  start: number;
  /** Global index of the boundary at `start`. */
  startIter: number;
  tau: number;
}

export class DecodeBatch {
  private readonly iterTimeFn: DecodeBatchOptions['iterTime'];
  private readonly tAcc: number;
  private readonly maxBatch: number;
  private readonly kv: DecodeKvBudget;
  private retracted = 0;

  private readonly entries = new Map<number, Entry>();
  private readonly running = new Map<number, Entry>();
  private readonly heap = new FinishHeap<Entry>();
  private pending: Entry[] = [];
  private pendingHead = 0;
  /** Zero-token requests, reported by the next advance. */
  private instant: DecodeFinish[] = [];

  private epoch: Epoch | null = null;
  /** Boundary index (within the epoch) where a removal changes B, if any. */
  private dirtyAt: number | null = null;
  /** Global index of the last boundary processed; an idle batch restarts from it. */
  private lastIter = 0;
  private clock = -Infinity;
  // Running sums give the mean context in O(1): context + t_acc * (I - startIter) per request.
  private sumContext = 0;
  private sumStartIter = 0;
  private sumKv = 0;

  constructor(opts: DecodeBatchOptions) {
    if (!(opts.tokensPerIteration > 0) || !Number.isFinite(opts.tokensPerIteration)) {
      throw new RangeError(`tokensPerIteration must be positive, got ${opts.tokensPerIteration}`);
    }
    if (!Number.isInteger(opts.maxBatch) || opts.maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer, got ${opts.maxBatch}`);
    this.iterTimeFn = opts.iterTime;
    this.tAcc = opts.tokensPerIteration;
    this.maxBatch = opts.maxBatch;
    this.kv = new DecodeKvBudget(opts.kvCapacityTokens ?? Infinity, opts.kvReserveTokens ?? 0, this.tAcc);
  }

  /** Retractions so far (requests put back in the waiting queue because the GPU KV ran out). */
  get retractions(): number {
    return this.retracted;
  }

  /** Requests in the running batch (B). */
  get size(): number {
    return this.running.size;
  }

  /** Requests joined but not yet running (waiting for a boundary or a free slot). */
  get waiting(): number {
    return this.pending.length - this.pendingHead;
  }

  /** Seconds per iteration of the current epoch; 0 when idle. */
  get iterationTime(): number {
    return this.epoch?.tau ?? 0;
  }

  /** The current epoch (start time and iteration time), or null when idle. */
  currentEpoch(): { startedAt: number; iterationTime: number } | null {
    return this.epoch ? { startedAt: this.epoch.start, iterationTime: this.epoch.tau } : null;
  }

  runningIds(): number[] {
    return [...this.running.keys()];
  }

  waitingIds(): number[] {
    return this.pending.slice(this.pendingHead).map((e) => e.id);
  }

  has(id: number): boolean {
    return this.entries.has(id) || this.instant.some((f) => f.id === id);
  }

  /** `kvTokens`: KV the request holds on entering (its prompt's); counts only with a KV capacity. */
  join(now: number, id: number, tokensToGenerate: number, contextTokens: number, kvTokens = 0): void {
    if (!(tokensToGenerate >= 0) || !Number.isFinite(tokensToGenerate)) throw new RangeError(`tokensToGenerate must be >= 0, got ${tokensToGenerate}`);
    if (!(contextTokens >= 0) || !Number.isFinite(contextTokens)) throw new RangeError(`contextTokens must be >= 0, got ${contextTokens}`);
    if (!(kvTokens >= 0) || !Number.isFinite(kvTokens)) throw new RangeError(`kvTokens must be >= 0, got ${kvTokens}`);
    if (this.has(id)) throw new SimulationInvariantError(`decode batch: request ${id} joined twice`);
    this.tick(now, 'join');
    if (tokensToGenerate === 0) {
      this.instant.push({ id, at: now });
      return;
    }
    const entry: Entry = { id, tokens: tokensToGenerate, context: contextTokens, kv: kvTokens, joinedAt: now, state: 'waiting', startIter: 0, finishIter: 0, heapIndex: -1 };
    this.entries.set(id, entry);
    if (this.epoch === null) {
      // Idle: the first iteration starts now.
      this.admit(entry, this.lastIter);
      this.startEpoch(now, this.lastIter);
    } else {
      this.pending.push(entry);
    }
  }

  /** The next time something changes (a finish, an entry, a removal taking effect); Infinity when idle. */
  nextEventTime(): number {
    let t = this.instant.length > 0 ? this.instant[0]!.at : Infinity;
    if (this.epoch !== null) {
      const m = this.nextChange();
      if (m < Infinity) t = Math.min(t, this.boundaryTime(m));
    }
    return t;
  }

  /** Process every change up to and including `now`; finished requests in (time, id) order. */
  advance(now: number): DecodeFinish[] {
    this.clock = Math.max(this.clock, now);
    const out: DecodeFinish[] = [];
    const instants = this.instant.length > 0 && this.instant[0]!.at <= now;
    while (this.epoch !== null) {
      const m = this.nextChange();
      if (m === Infinity || this.boundaryTime(m) > now) break;
      this.processBoundary(m, out);
    }
    if (instants) {
      const keep: DecodeFinish[] = [];
      for (const f of this.instant) (f.at <= now ? out : keep).push(f);
      this.instant = keep;
      out.sort((a, b) => a.at - b.at || a.id - b.id);
    }
    return out;
  }

  /**
   * Take a request out (node failure, migration) at the current time, or at
   * `now` if given. Returns the tokens it still had to generate: iterations
   * completed so far count, the one in progress is lost. A running request
   * leaving changes B from the next boundary.
   */
  remove(id: number, now: number = this.clock): number {
    this.tick(now, 'remove');
    const inst = this.instant.findIndex((f) => f.id === id);
    if (inst >= 0) {
      this.instant.splice(inst, 1);
      return 0;
    }
    const entry = this.entries.get(id);
    if (!entry) throw new SimulationInvariantError(`decode batch: remove of unknown request ${id}`);
    this.entries.delete(id);
    if (entry.state === 'waiting') {
      const i = this.pending.indexOf(entry, this.pendingHead);
      this.pending.splice(i, 1);
      // A head that did not fit held the queue up: the next one may fit, from the next boundary.
      if (i === this.pendingHead && this.kv.bounded && this.epoch !== null) this.markDirty();
      return entry.tokens;
    }
    const epoch = this.epoch!;
    const passed = Math.floor((this.clock - epoch.start) / epoch.tau + ITER_EPS);
    const done = Math.min(entry.finishIter, epoch.startIter + passed) - entry.startIter;
    this.dropRunning(entry);
    this.markDirty();
    return Math.max(0, entry.tokens - done * this.tAcc);
  }

  /** The batch changes at the first boundary at or after the clock. */
  private markDirty(): void {
    const epoch = this.epoch!;
    const at = Math.max(0, Math.ceil((this.clock - epoch.start) / epoch.tau - ITER_EPS));
    this.dirtyAt = this.dirtyAt === null ? at : Math.min(this.dirtyAt, at);
  }

  /** Remove every waiting request (a switching node hands them to its peers); their ids in FIFO order. */
  takeWaiting(): number[] {
    const ids = this.waitingIds();
    for (const id of ids) this.entries.delete(id);
    this.pending = [];
    this.pendingHead = 0;
    return ids;
  }

  /** Drop everything (the node went down); the batch is idle afterwards. */
  clear(): void {
    this.entries.clear();
    this.running.clear();
    this.heap.clear();
    this.pending = [];
    this.pendingHead = 0;
    this.instant = [];
    if (this.epoch !== null) this.lastIter = this.epoch.startIter;
    this.epoch = null;
    this.dirtyAt = null;
    this.sumContext = 0;
    this.sumStartIter = 0;
    this.sumKv = 0;
  }

  // ---- internals ------------------------------------------------------------

  private tick(now: number, what: string): void {
    const tol = this.epoch ? ITER_EPS * this.epoch.tau : 0;
    if (now < this.clock - tol) throw new SimulationInvariantError(`decode batch: ${what} at ${now} after time ${this.clock}`);
    if (this.nextEventTime() < now - tol) {
      throw new SimulationInvariantError(`decode batch: ${what} at ${now} before advancing past the change at ${this.nextEventTime()}`);
    }
    this.clock = Math.max(this.clock, now);
  }

  private boundaryTime(m: number): number {
    const e = this.epoch!;
    return m === 0 ? e.start : e.start + m * e.tau;
  }

  /** Index, within the current epoch, of the next boundary where the batch changes. */
  private nextChange(): number {
    const e = this.epoch!;
    let m = Infinity;
    const top = this.heap.peek();
    if (top) m = top.finishIter - e.startIter;
    if (this.dirtyAt !== null) {
      // Waiting requests enter where the removal takes effect, not earlier.
      m = Math.min(m, this.dirtyAt);
    } else if (this.waiting > 0 && this.running.size < this.maxBatch) {
      const head = this.pending[this.pendingHead]!;
      const at = Math.max(0, Math.ceil((head.joinedAt - e.start) / e.tau - ITER_EPS));
      // KV only frees at a finish or removal: a head that does not fit waits for one.
      if (this.fits(head, e.startIter + at)) m = Math.min(m, at);
    }
    const overflow = this.kv.overflowIndex(this.sumKv, this.sumStartIter, this.running.size);
    if (overflow < Infinity) m = Math.min(m, Math.max(0, overflow - e.startIter));
    return m;
  }

  private processBoundary(m: number, out: DecodeFinish[]): void {
    const e = this.epoch!;
    const at = this.boundaryTime(m);
    const index = e.startIter + m;
    for (let top = this.heap.peek(); top && top.finishIter === index; top = this.heap.peek()) {
      this.heap.pop();
      this.entries.delete(top.id);
      this.dropRunning(top);
      out.push({ id: top.id, at });
    }
    const tol = ITER_EPS * e.tau;
    this.dirtyAt = null;
    if (this.kv.bounded) this.retractOverflow(index, at);
    while (this.waiting > 0 && this.running.size < this.maxBatch) {
      const next = this.pending[this.pendingHead]!;
      if (next.joinedAt > at + tol || !this.fits(next, index)) break;
      this.pendingHead++;
      this.admit(next, index);
    }
    if (this.pendingHead > 64 && this.pendingHead * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.pendingHead);
      this.pendingHead = 0;
    }
    this.lastIter = index;
    if (this.running.size === 0) this.epoch = null;
    else this.startEpoch(at, index);
  }

  private startEpoch(start: number, startIter: number): void {
    const b = this.running.size;
    const meanContext = (this.sumContext + this.tAcc * (b * startIter - this.sumStartIter)) / b;
    const tau = this.iterTimeFn(b, meanContext);
    if (!(tau > 0) || !Number.isFinite(tau)) throw new SimulationInvariantError(`decode batch: iteration time ${tau} for batch ${b}`);
    this.epoch = { start, startIter, tau };
  }

  private admit(entry: Entry, index: number): void {
    entry.state = 'running';
    entry.startIter = index;
    entry.finishIter = index + Math.max(1, Math.ceil(entry.tokens / this.tAcc - RATIO_EPS));
    this.running.set(entry.id, entry);
    this.heap.push(entry);
    this.sumContext += entry.context;
    this.sumStartIter += index;
    this.sumKv += entry.kv;
  }

  private dropRunning(entry: Entry): void {
    this.running.delete(entry.id);
    this.heap.remove(entry);
    this.sumContext -= entry.context;
    this.sumStartIter -= entry.startIter;
    this.sumKv -= entry.kv;
  }

  private fits(entry: Entry, index: number): boolean {
    return this.kv.fits(entry.kv, this.sumKv, this.sumStartIter, this.running.size, index);
  }

  /**
   * The iteration starting at boundary `index` would not fit: retract running
   * requests until it does, the latest to enter first (fewest tokens generated
   * in this stay; SGLang retracts the fewest output tokens first), then the
   * most KV (SGLang: longest prompt), then the highest id. They keep what they generated and go, in retraction
   * order, to the front of the waiting queue.
   */
  private retractOverflow(index: number, at: number): void {
    const back: Entry[] = [];
    while (this.kv.overflowIndex(this.sumKv, this.sumStartIter, this.running.size) <= index) {
      let victim: Entry | null = null;
      for (const r of this.running.values()) {
        if (!victim || r.startIter > victim.startIter || (r.startIter === victim.startIter && (r.kv > victim.kv || (r.kv === victim.kv && r.id > victim.id)))) victim = r;
      }
      this.dropRunning(victim!);
      const generated = (index - victim!.startIter) * this.tAcc;
      const again: Entry = { ...victim!, tokens: victim!.tokens - generated, context: victim!.context + generated, kv: victim!.kv + generated, joinedAt: at, state: 'waiting' };
      this.entries.set(again.id, again);
      back.push(again);
      this.retracted++;
    }
    if (back.length > 0) this.pending.splice(this.pendingHead, 0, ...back);
  }
}
