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
    expect(s.meanOutputTokens).toBeGreaterThan(300);
    expect(s.meanOutputTokens).toBeLessThan(800);
  });

  it('putnam: mean pause about 10 s, decode-heavy outputs of several thousand tokens', () => {
    const s = traceStats(generateTrace(loadWorkloadPreset('putnam'), { seed: 1, agents: 60, minutes: 60 }).events);
    expect(s.meanPauseSeconds).toBeGreaterThan(9);
    expect(s.meanPauseSeconds).toBeLessThan(11);
    expect(s.meanOutputTokens).toBeGreaterThan(2000);
    expect(s.forks + s.subagents).toBe(0);
  });

  it('osworld: mean pause 1.0-1.4 s, prefill-heavy', () => {
    const s = traceStats(generateTrace(loadWorkloadPreset('osworld'), { seed: 1, agents: 32, minutes: 30 }).events);
    expect(s.meanPauseSeconds).toBeGreaterThan(1.0);
    expect(s.meanPauseSeconds).toBeLessThan(1.4);
    expect(s.meanNewTokens).toBeGreaterThan(5 * s.meanOutputTokens);
  });
});
