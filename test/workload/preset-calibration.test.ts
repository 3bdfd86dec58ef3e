import { describe, expect, it } from 'vitest';
import { generateTrace, loadWorkloadPreset, traceStats } from '../../src/workload/index.js';

/** Published workload facts (design/CALIBRATION.md), measured on generated traces. */
describe('preset workload facts', () => {
  it('cc: mean pause 13-19 s, contexts of 100k+ tokens, ideal hit rate near 97%', () => {
    const s = traceStats(generateTrace(loadWorkloadPreset('cc'), { seed: 1, agents: 40, minutes: 90 }).events);
    expect(s.meanPauseSeconds).toBeGreaterThan(13);
    expect(s.meanPauseSeconds).toBeLessThan(19);
    expect(s.meanInputTokens).toBeGreaterThan(60_000);
    expect(s.idealHitRate).toBeGreaterThan(0.95);
    expect(s.idealHitRate).toBeLessThan(0.99);
    expect(s.subagents).toBeGreaterThan(0);
    expect(s.forks).toBeGreaterThan(0);
    expect(s.compactions).toBeGreaterThan(0);
    // About 950 tokens: the published E2E - TTFT (4.3-4.4 s) over the published TPOT (4.6 ms).
    expect(s.meanOutputTokens).toBeGreaterThan(700);
    expect(s.meanOutputTokens).toBeLessThan(1300);
    // Right after a compaction only the system prompt is reused: 14.3% published.
    const cc = loadWorkloadPreset('cc').kinds.cc!;
    const overlap = cc.systemPromptTokens.mean / (cc.systemPromptTokens.mean + cc.compaction!.keptTokens.mean);
    expect(overlap).toBeGreaterThan(0.12);
    expect(overlap).toBeLessThan(0.17);
  });

  it('putnam: mean pause about 10 s, decode-heavy outputs well over a thousand tokens', () => {
    const s = traceStats(generateTrace(loadWorkloadPreset('putnam'), { seed: 1, agents: 60, minutes: 60 }).events);
    expect(s.meanPauseSeconds).toBeGreaterThan(9);
    expect(s.meanPauseSeconds).toBeLessThan(11);
    // About 1,700 tokens: the published E2E - TTFT (~13.5 s at 2P7D) over a TPOT of ~8 ms at ~17 running per decode node.
    expect(s.meanOutputTokens).toBeGreaterThan(1200);
    expect(s.meanOutputTokens).toBeGreaterThan(s.meanNewTokens / 3);
    expect(s.forks + s.subagents).toBe(0);
  });

  it('osworld: mean pause 1.0-1.4 s, prefill-heavy', () => {
    const s = traceStats(generateTrace(loadWorkloadPreset('osworld'), { seed: 1, agents: 32, minutes: 30 }).events);
    expect(s.meanPauseSeconds).toBeGreaterThan(1.0);
    expect(s.meanPauseSeconds).toBeLessThan(1.4);
    expect(s.meanNewTokens).toBeGreaterThan(5 * s.meanOutputTokens);
  });
});
