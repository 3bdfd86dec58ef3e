import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MetricsRecorder } from '../../src/sim/metrics.js';
import { RequestState } from '../../src/sim/request-state.js';
import { mean, round, summarize } from '../../src/sim/stats.js';

/**
 * The recorder keeps only numbers (exact samples, running sums) and
 * summarises slices once they are over, so that a day of serving stays
 * small. Its results must equal those computed from every completed request
 * kept whole, as it used to: the reference below is that computation.
 */
interface Done {
  at: number;
  rs: RequestState;
}

const completion = fc.record({
  gap: fc.double({ min: 0, max: 40, noNaN: true }),
  input: fc.integer({ min: 1, max: 200_000 }),
  output: fc.integer({ min: 1, max: 5_000 }),
  hitBlocks: fc.nat({ max: 400 }),
  idealBlocks: fc.nat({ max: 400 }),
  node: fc.nat({ max: 4 }),
  wait: fc.double({ min: 0, max: 30, noNaN: true }),
  ttft: fc.double({ min: 0, max: 60, noNaN: true }),
  decode: fc.double({ min: 0, max: 90, noNaN: true }),
  peek: fc.boolean(),
});

function reference(done: readonly Done[], warmup: number, end: number) {
  const recs = done.filter((d) => d.at >= warmup && d.at <= end).map((d) => d.rs);
  const waitByNode = new Map<number, number[]>();
  const tpot: number[] = [];
  for (const r of recs) {
    if (r.req.outputTokens > 1) tpot.push(((r.finishedAt - r.firstTokenAt) / (r.req.outputTokens - 1)) * 1000);
    let l = waitByNode.get(r.prefillNode);
    if (!l) waitByNode.set(r.prefillNode, (l = []));
    l.push(r.prefillStart - r.enqueuedAt);
  }
  const perNode = [...waitByNode.values()].map(mean);
  return {
    ttft: summarize(recs.map((r) => r.firstTokenAt - r.arrival)),
    e2e: summarize(recs.map((r) => r.finishedAt - r.arrival)),
    wait: summarize(recs.map((r) => r.prefillStart - r.enqueuedAt)),
    tpotMs: round(mean(tpot), 3),
    uncached: round(recs.length ? recs.reduce((s, r) => s + r.uncachedTokens, 0) / recs.length : 0, 1),
    mostLoaded: round(mean(perNode) > 0 ? Math.max(...perNode) / mean(perNode) : 1, 3),
    count: recs.length,
  };
}

describe('metrics recorder (property)', () => {
  it('reports what keeping every completed request would report', () => {
    fc.assert(
      fc.property(fc.array(completion, { minLength: 1, maxLength: 300 }), fc.double({ min: 0, max: 600, noNaN: true }), (items, warmup) => {
        const rec = new MetricsRecorder(warmup, 1e9, 60, 1);
        const done: Done[] = [];
        let t = 0;
        items.forEach((c, id) => {
          t += c.gap;
          const arrival = Math.max(0, t - c.ttft - c.decode);
          const rs = new RequestState({ id, agent: 0, branch: id, version: 0, inputTokens: c.input, outputTokens: c.output, blocks: [], producedBlocks: [] }, arrival);
          rs.hitBlocks = c.hitBlocks;
          rs.idealBlocks = c.idealBlocks;
          rs.prefillNode = c.node;
          rs.enqueuedAt = arrival;
          rs.prefillStart = arrival + c.wait;
          rs.firstTokenAt = arrival + c.ttft;
          rs.finishedAt = t;
          rec.arrival(t);
          rec.completion(rs, t);
          done.push({ at: t, rs });
          // A policy's window read mid-run (it summarises the slices that are over).
          if (c.peek) rec.recentSlices(t, 10);
        });
        rec.endSeconds = t;
        const m = rec.finalize(0, 0);
        const ref = reference(done, warmup, t);
        const r = (s: { mean: number; p50: number; p95: number }) => ({ mean: round(s.mean), p50: round(s.p50), p95: round(s.p95) });
        expect(m.requestsCompleted).toBe(ref.count);
        expect(m.ttft).toEqual(r(ref.ttft));
        expect(m.e2e).toEqual(r(ref.e2e));
        expect(m.prefillQueueWait).toEqual(r(ref.wait));
        expect(m.tpotMs).toBe(ref.tpotMs);
        expect(m.uncachedTokensPerRequest).toBe(ref.uncached);
        expect(m.prefillMostLoadedOverAvg).toBe(ref.mostLoaded);
        // Per slice: the completions that landed in it, summarised as a whole.
        for (const s of rec.allSlices()) {
          const inSlice = done.filter((d) => Math.floor(d.at / 60) === s.start / 60).map((d) => d.rs);
          const ttft = summarize(inSlice.map((x) => x.firstTokenAt - x.arrival));
          expect(s.completions).toBe(inSlice.length);
          expect([s.ttftMean, s.ttftP50, s.ttftP95]).toEqual([round(ttft.mean), round(ttft.p50), round(ttft.p95)]);
          expect(s.e2eP95).toBe(round(summarize(inSlice.map((x) => x.finishedAt - x.arrival)).p95));
        }
      }),
      { seed: 20261201, numRuns: 200 },
    );
  });
});
