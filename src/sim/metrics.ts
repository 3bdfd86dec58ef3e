import type { RequestState } from './request-state.js';
import { RunningMean, Samples } from './samples.js';
import { mean, round, summarize, type Summary } from './stats.js';

/** The section 3 metrics over the scored period (warm-up excluded). */
export interface SimMetrics {
  throughput: number;
  ttft: Summary;
  e2e: Summary;
  tpotMs: number;
  kvHitRate: { actual: number; ideal: number };
  lostKvReusePct: number;
  uncachedTokensPerRequest: number;
  prefillQueueWait: Summary;
  prefillMostLoadedOverAvg: number;
  /** Share of prefill-node time in the scored period with the GPU not computing (idle or waiting on a fetch). */
  prefillIdlePct: number;
  transitions: { count: number; meanSeconds: number };
  requestsArrived: number;
  requestsCompleted: number;
  requestsInFlight: number;
}

/** One 60 s slice: what the window of a policy's ctx is made of. */
export interface SliceMetrics {
  start: number;
  end: number;
  scored: boolean;
  arrivals: number;
  completions: number;
  throughput: number;
  ttftMean: number;
  ttftP50: number;
  ttftP95: number;
  e2eMean: number;
  e2eP50: number;
  e2eP95: number;
  meanUncachedTokens: number;
  meanCachedTokens: number;
  meanOutputTokens: number;
  meanAcceptedPerIter: number;
  meanPrefillQueue: number;
  meanDecodeQueue: number;
  kvHitRate: number;
  split: string;
}

export interface TransitionRecord {
  node: number;
  from: 'P' | 'D';
  to: 'P' | 'D';
  start: number;
  end: number | null;
  kind: 'symmetric' | 'restart';
}

interface SliceAccumulator {
  arrivals: number;
  /** Completions; their TTFT and E2E while the slice is open, summarised once it is over (see freeze). */
  completions: number;
  ttft: number[];
  e2e: number[];
  summary: { ttft: Summary; e2e: Summary } | null;
  uncached: number;
  cached: number;
  output: number;
  input: number;
  prefillQueueSum: number;
  decodeQueueSum: number;
  samples: number;
  split: string;
  /** Ideal prompt hits (tokens an earlier request produced) of the completions; KV samples at monitoring steps. */
  ideal: number;
  unrefSum: number;
  unrefSamples: number;
}

/** Per slice, for ctx (contract v2): lost KV reuse of its completions and the time-averaged share of KV at count 0 (null: not measured). */
export interface SliceKv {
  lostKvReuse: number | null;
  kvUnreferencedShare: number | null;
}

/**
 * Collects per-request figures and per-slice aggregates as the run goes, so
 * that a policy can be handed the last window at any time.
 *
 * Memory stays small over a long run (a day of `serve`): a completed request
 * is not kept, only the numbers the scored metrics need (exact samples for
 * the percentiles, 8 bytes each; running sums, added in completion order, for
 * the means), and a slice's samples are replaced by their summary once the
 * slice is over. The results are the same as from keeping every request.
 */
export class MetricsRecorder {
  private readonly slices: SliceAccumulator[] = [];
  /** Slices before this index are over and summarised. */
  private frozenUpTo = 0;
  private readonly scored = {
    count: 0,
    input: 0,
    hit: 0,
    ideal: 0,
    uncached: 0,
    tpot: new RunningMean(),
    ttft: new Samples(),
    e2e: new Samples(),
    waits: new Samples(),
    /** Prefill queue wait per prefill node, in order of first appearance. */
    waitByNode: new Map<number, RunningMean>(),
  };
  readonly transitions: TransitionRecord[] = [];
  readonly splitTimeline: { at: number; split: string }[] = [];
  arrived = 0;
  completed = 0;

  constructor(
    readonly warmupSeconds: number,
    /** The end of the scored period; a drained run moves it to when it stopped. */
    public endSeconds: number,
    readonly sliceSeconds: number,
    private readonly tokensPerIteration: number,
  ) {}

  /** The slice of time t (simulated time only moves forward, so every earlier slice is over). */
  private slice(t: number): SliceAccumulator {
    const i = Math.max(0, Math.floor(t / this.sliceSeconds));
    while (this.slices.length <= i) {
      const prev = this.slices[this.slices.length - 1];
      this.slices.push({ arrivals: 0, completions: 0, ttft: [], e2e: [], summary: null, uncached: 0, cached: 0, output: 0, input: 0, prefillQueueSum: 0, decodeQueueSum: 0, samples: 0, split: prev?.split ?? '', ideal: 0, unrefSum: 0, unrefSamples: 0 });
    }
    while (this.frozenUpTo < i) freeze(this.slices[this.frozenUpTo++]!);
    return this.slices[i]!;
  }

  arrival(t: number): void {
    this.arrived++;
    this.slice(t).arrivals++;
  }

  completion(rs: RequestState, t: number): void {
    this.completed++;
    const s = this.slice(t);
    s.completions++;
    s.ttft.push(rs.firstTokenAt - rs.arrival);
    s.e2e.push(t - rs.arrival);
    s.uncached += rs.uncachedTokens;
    s.cached += rs.hitTokens;
    s.input += rs.req.inputTokens;
    s.output += rs.req.outputTokens;
    s.ideal += Math.min(rs.req.inputTokens, rs.idealBlocks * 512);
    if (t >= this.warmupSeconds && t <= this.endSeconds) this.score(rs);
  }

  private score(rs: RequestState): void {
    const m = this.scored;
    m.count++;
    m.input += rs.req.inputTokens;
    m.hit += rs.hitTokens;
    m.ideal += Math.min(rs.req.inputTokens, rs.idealBlocks * 512);
    m.uncached += rs.uncachedTokens;
    if (rs.req.outputTokens > 1) m.tpot.add(((rs.finishedAt - rs.firstTokenAt) / (rs.req.outputTokens - 1)) * 1000);
    const w = rs.prefillStart - rs.enqueuedAt;
    m.waits.push(w);
    let node = m.waitByNode.get(rs.prefillNode);
    if (!node) m.waitByNode.set(rs.prefillNode, (node = new RunningMean()));
    node.add(w);
    m.ttft.push(rs.firstTokenAt - rs.arrival);
    m.e2e.push(rs.finishedAt - rs.arrival);
  }

  queues(t: number, prefillQueue: number, decodeQueue: number): void {
    const s = this.slice(t);
    s.prefillQueueSum += prefillQueue;
    s.decodeQueueSum += decodeQueue;
    s.samples++;
  }

  /** A monitoring step's share of resident KV no branch counts (null: not known, not sampled). */
  kvSample(t: number, unreferencedShare: number | null): void {
    if (unreferencedShare === null) return;
    const s = this.slice(t);
    s.unrefSum += unreferencedShare;
    s.unrefSamples++;
  }

  /** The KV figures of the slices recentSlices(t, count) returns, in the same order. */
  recentSliceKv(t: number, count: number): SliceKv[] {
    const done = Math.min(this.slices.length, Math.floor(t / this.sliceSeconds));
    const out: SliceKv[] = [];
    for (let i = Math.max(0, done - count); i < done; i++) {
      const s = this.slices[i]!;
      out.push({
        lostKvReuse: s.ideal > 0 ? round(Math.max(0, s.ideal - s.cached) / s.ideal) : null,
        kvUnreferencedShare: s.unrefSamples > 0 ? round(s.unrefSum / s.unrefSamples) : null,
      });
    }
    return out;
  }

  split(t: number, split: string): void {
    const last = this.splitTimeline[this.splitTimeline.length - 1];
    if (last && last.split === split) return;
    this.splitTimeline.push({ at: t, split });
    this.slice(t).split = split;
  }

  /** Finished slices whose end is at or before `t` (the last `count` of them). */
  recentSlices(t: number, count: number): SliceMetrics[] {
    const done = Math.min(this.slices.length, Math.floor(t / this.sliceSeconds));
    const out: SliceMetrics[] = [];
    for (let i = Math.max(0, done - count); i < done; i++) out.push(this.sliceMetrics(i));
    return out;
  }

  allSlices(): SliceMetrics[] {
    const n = Math.ceil(this.endSeconds / this.sliceSeconds);
    this.slice(Math.max(0, this.endSeconds - 1e-9));
    const out: SliceMetrics[] = [];
    for (let i = 0; i < n; i++) out.push(this.sliceMetrics(i));
    return out;
  }

  private sliceMetrics(i: number): SliceMetrics {
    const s = this.slice(i * this.sliceSeconds);
    const start = i * this.sliceSeconds;
    const end = start + this.sliceSeconds;
    const n = s.completions;
    const { ttft, e2e } = s.summary ?? { ttft: summarize(s.ttft), e2e: summarize(s.e2e) };
    return {
      start,
      end,
      scored: start >= this.warmupSeconds - 1e-9 && end <= this.endSeconds + 1e-9,
      arrivals: s.arrivals,
      completions: n,
      throughput: round(n / this.sliceSeconds),
      ttftMean: round(ttft.mean),
      ttftP50: round(ttft.p50),
      ttftP95: round(ttft.p95),
      e2eMean: round(e2e.mean),
      e2eP50: round(e2e.p50),
      e2eP95: round(e2e.p95),
      meanUncachedTokens: round(n ? s.uncached / n : 0, 1),
      meanCachedTokens: round(n ? s.cached / n : 0, 1),
      meanOutputTokens: round(n ? s.output / n : 0, 1),
      meanAcceptedPerIter: this.tokensPerIteration,
      meanPrefillQueue: round(s.samples ? s.prefillQueueSum / s.samples : 0),
      meanDecodeQueue: round(s.samples ? s.decodeQueueSum / s.samples : 0),
      kvHitRate: round(s.input ? s.cached / s.input : 0),
      split: s.split,
    };
  }

  finalize(inFlight: number, prefillIdlePct: number): SimMetrics {
    const m = this.scored;
    const scoredSeconds = this.endSeconds - this.warmupSeconds;
    const { input, hit, ideal, uncached } = m;
    const perNode = [...m.waitByNode.values()].map((w) => w.mean);
    const avgWait = mean(perNode);
    const scoredTransitions = this.transitions.filter((t) => t.start >= this.warmupSeconds && t.start <= this.endSeconds);
    const finished = scoredTransitions.filter((t) => t.end !== null);
    const ttft = summarize(m.ttft.values());
    const e2e = summarize(m.e2e.values());
    const qw = summarize(m.waits.values());
    const roundSummary = (s: Summary): Summary => ({ mean: round(s.mean), p50: round(s.p50), p95: round(s.p95) });
    return {
      throughput: round(scoredSeconds > 0 ? m.count / scoredSeconds : 0),
      ttft: roundSummary(ttft),
      e2e: roundSummary(e2e),
      tpotMs: round(m.tpot.mean, 3),
      kvHitRate: { actual: round(input ? hit / input : 0), ideal: round(input ? ideal / input : 0) },
      lostKvReusePct: round(ideal ? (Math.max(0, ideal - hit) / ideal) * 100 : 0, 3),
      uncachedTokensPerRequest: round(m.count ? uncached / m.count : 0, 1),
      prefillQueueWait: roundSummary(qw),
      prefillMostLoadedOverAvg: round(avgWait > 0 ? Math.max(...perNode) / avgWait : 1, 3),
      prefillIdlePct: round(prefillIdlePct, 2),
      transitions: { count: scoredTransitions.length, meanSeconds: round(mean(finished.map((t) => t.end! - t.start)), 3) },
      requestsArrived: this.arrived,
      requestsCompleted: m.count,
      requestsInFlight: inFlight,
    };
  }
}

/** A slice that is over: its samples are replaced by their summary (what sliceMetrics reports). */
function freeze(s: SliceAccumulator): void {
  if (s.summary) return;
  s.summary = { ttft: summarize(s.ttft), e2e: summarize(s.e2e) };
  s.ttft = [];
  s.e2e = [];
}
