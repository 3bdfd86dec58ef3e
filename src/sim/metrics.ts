import type { RequestState } from './request-state.js';
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
  ttft: number[];
  e2e: number[];
  uncached: number;
  cached: number;
  output: number;
  input: number;
  prefillQueueSum: number;
  decodeQueueSum: number;
  samples: number;
  split: string;
}

/**
 * Collects per-request records and per-slice aggregates as the run goes, so
 * that a policy can be handed the last window at any time.
 */
export class MetricsRecorder {
  private readonly slices: SliceAccumulator[] = [];
  private readonly scored: RequestState[] = [];
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

  private slice(t: number): SliceAccumulator {
    const i = Math.max(0, Math.floor(t / this.sliceSeconds));
    while (this.slices.length <= i) {
      const prev = this.slices[this.slices.length - 1];
      this.slices.push({ arrivals: 0, ttft: [], e2e: [], uncached: 0, cached: 0, output: 0, input: 0, prefillQueueSum: 0, decodeQueueSum: 0, samples: 0, split: prev?.split ?? '' });
    }
    return this.slices[i]!;
  }

  arrival(t: number): void {
    this.arrived++;
    this.slice(t).arrivals++;
  }

  completion(rs: RequestState, t: number): void {
    this.completed++;
    const s = this.slice(t);
    s.ttft.push(rs.firstTokenAt - rs.arrival);
    s.e2e.push(t - rs.arrival);
    s.uncached += rs.uncachedTokens;
    s.cached += rs.hitTokens;
    s.input += rs.req.inputTokens;
    s.output += rs.req.outputTokens;
    if (t >= this.warmupSeconds && t <= this.endSeconds) this.scored.push(rs);
  }

  queues(t: number, prefillQueue: number, decodeQueue: number): void {
    const s = this.slice(t);
    s.prefillQueueSum += prefillQueue;
    s.decodeQueueSum += decodeQueue;
    s.samples++;
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
    const n = s.e2e.length;
    const ttft = summarize(s.ttft);
    const e2e = summarize(s.e2e);
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
    const recs = this.scored;
    const scoredSeconds = this.endSeconds - this.warmupSeconds;
    let input = 0;
    let hit = 0;
    let ideal = 0;
    let uncached = 0;
    const tpot: number[] = [];
    const waitByNode = new Map<number, number[]>();
    const waits: number[] = [];
    for (const rs of recs) {
      input += rs.req.inputTokens;
      hit += rs.hitTokens;
      ideal += Math.min(rs.req.inputTokens, rs.idealBlocks * 512);
      uncached += rs.uncachedTokens;
      if (rs.req.outputTokens > 1) tpot.push(((rs.finishedAt - rs.firstTokenAt) / (rs.req.outputTokens - 1)) * 1000);
      const w = rs.prefillStart - rs.enqueuedAt;
      waits.push(w);
      let list = waitByNode.get(rs.prefillNode);
      if (!list) waitByNode.set(rs.prefillNode, (list = []));
      list.push(w);
    }
    const perNode = [...waitByNode.values()].map(mean);
    const avgWait = mean(perNode);
    const scoredTransitions = this.transitions.filter((t) => t.start >= this.warmupSeconds && t.start <= this.endSeconds);
    const finished = scoredTransitions.filter((t) => t.end !== null);
    const ttft = summarize(recs.map((r) => r.firstTokenAt - r.arrival));
    const e2e = summarize(recs.map((r) => r.finishedAt - r.arrival));
    const qw = summarize(waits);
    const roundSummary = (s: Summary): Summary => ({ mean: round(s.mean), p50: round(s.p50), p95: round(s.p95) });
    return {
      throughput: round(scoredSeconds > 0 ? recs.length / scoredSeconds : 0),
      ttft: roundSummary(ttft),
      e2e: roundSummary(e2e),
      tpotMs: round(mean(tpot), 3),
      kvHitRate: { actual: round(input ? hit / input : 0), ideal: round(input ? ideal / input : 0) },
      lostKvReusePct: round(ideal ? (Math.max(0, ideal - hit) / ideal) * 100 : 0, 3),
      uncachedTokensPerRequest: round(recs.length ? uncached / recs.length : 0, 1),
      prefillQueueWait: roundSummary(qw),
      prefillMostLoadedOverAvg: round(avgWait > 0 ? Math.max(...perNode) / avgWait : 1, 3),
      prefillIdlePct: round(prefillIdlePct, 2),
      transitions: { count: scoredTransitions.length, meanSeconds: round(mean(finished.map((t) => t.end! - t.start)), 3) },
      requestsArrived: this.arrived,
      requestsCompleted: recs.length,
      requestsInFlight: inFlight,
    };
  }
}
