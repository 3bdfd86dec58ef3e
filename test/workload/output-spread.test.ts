import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/sim/index.js';
import { generateTrace, loadWorkloadPreset, MEASURED_AGENT_OUTPUT_CV, withOutputCv, type Trace } from '../../src/workload/index.js';
import { requestsOf } from './helpers.js';

/** Output lengths of the ordinary calls (compaction calls, whose output is the summary, left out). */
function callOutputs(trace: Trace): number[] {
  const compacted = new Set<string>();
  for (const e of trace.events) if (e.type === 'compact') compacted.add(`${e.branch}/${e.version - 1}`);
  const last = new Map<string, number>();
  for (const r of requestsOf(trace)) last.set(`${r.branch}/${r.version}`, r.id);
  return requestsOf(trace)
    .filter((r) => !(compacted.has(`${r.branch}/${r.version}`) && last.get(`${r.branch}/${r.version}`) === r.id))
    .map((r) => r.output);
}

function spread(xs: number[]): { mean: number; cv: number; logSd: number; p95OverMean: number } {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  const logs = xs.map(Math.log);
  const logMean = logs.reduce((a, b) => a + b, 0) / n;
  const logSd = Math.sqrt(logs.reduce((a, b) => a + (b - logMean) ** 2, 0) / n);
  const sorted = [...xs].sort((a, b) => a - b);
  return { mean, cv: sd / mean, logSd, p95OverMean: sorted[Math.floor(0.95 * n)]! / mean };
}

/** What a log-normal of this cv gives: sigma of ln(x) and P95 / mean. */
function lognormalOf(cv: number): { logSd: number; p95OverMean: number } {
  const s = Math.sqrt(Math.log(1 + cv * cv));
  return { logSd: s, p95OverMean: Math.exp(1.6449 * s - (s * s) / 2) };
}

describe('per-call output length spread (output-spread.ts)', () => {
  it('the measured coding-agent spread: cv 2.0 is sigma 1.27 and P95/mean 3.6 (TraceLab Codex: P50 184, P90 939, mean 415)', () => {
    expect(MEASURED_AGENT_OUTPUT_CV).toBe(2.0);
    const { logSd } = lognormalOf(MEASURED_AGENT_OUTPUT_CV);
    // The published quantiles, read through the log-normal of that sigma.
    expect(Math.log(939 / 184) / 1.2816).toBeCloseTo(logSd, 1);
    expect(Math.sqrt(2 * Math.log(415 / 184))).toBeCloseTo(logSd, 1);
    expect(184 * Math.exp(2.3263 * logSd)).toBeGreaterThan(3508 * 0.9);
    expect(184 * Math.exp(2.3263 * logSd)).toBeLessThan(3508 * 1.1);
  });

  for (const [name, agents, minutes] of [
    ['cc', 40, 90],
    ['putnam', 60, 60],
  ] as const) {
    it(`${name}: generated outputs have the measured spread by default, and outputCv switches it`, () => {
      const preset = loadWorkloadPreset(name);
      const kind = Object.values(preset.kinds)[0]!;
      expect(kind.outputTokens.cv).toBe(MEASURED_AGENT_OUTPUT_CV);
      const measured = spread(callOutputs(generateTrace(preset, { seed: 3, agents, minutes })));
      const want = lognormalOf(MEASURED_AGENT_OUTPUT_CV);
      expect(measured.logSd).toBeGreaterThan(want.logSd * 0.95);
      expect(measured.logSd).toBeLessThan(want.logSd * 1.05);
      expect(measured.p95OverMean).toBeGreaterThan(want.p95OverMean * 0.92);
      expect(measured.p95OverMean).toBeLessThan(want.p95OverMean * 1.08);
      expect(measured.mean).toBeGreaterThan(kind.outputTokens.mean * 0.85);
      expect(measured.mean).toBeLessThan(kind.outputTokens.mean * 1.15);

      // The earlier, narrower spread (cc 1.3): same mean, a shorter tail.
      const narrow = spread(callOutputs(generateTrace(preset, { seed: 3, agents, minutes, outputCv: 1.3 })));
      const wantNarrow = lognormalOf(1.3);
      expect(narrow.logSd).toBeGreaterThan(wantNarrow.logSd * 0.95);
      expect(narrow.logSd).toBeLessThan(wantNarrow.logSd * 1.05);
      expect(narrow.p95OverMean).toBeLessThan(measured.p95OverMean * 0.93);
      expect(narrow.mean).toBeGreaterThan(kind.outputTokens.mean * 0.9);
      expect(narrow.mean).toBeLessThan(kind.outputTokens.mean * 1.1);
    });
  }

  it('outputCv 0 gives constant outputs, and agents start from the same prompts', () => {
    const preset = loadWorkloadPreset('putnam');
    const a = requestsOf(generateTrace(preset, { seed: 5, agents: 4, minutes: 20, outputCv: 0 }));
    expect(new Set(a.map((r) => r.output)).size).toBe(1);
    // The first call of each of the starting agents (before any output joins the context) has the same prompt whatever the spread.
    const b = requestsOf(generateTrace(preset, { seed: 5, agents: 4, minutes: 20 }));
    const firstInputs = (rs: typeof a): number[] => [0, 1, 2, 3].map((agent) => rs.find((r) => r.agent === agent)!.input);
    expect(firstInputs(a)).toEqual(firstInputs(b));
  });

  it('rejects a bad outputCv naming the field', () => {
    const kinds = loadWorkloadPreset('cc').kinds;
    expect(() => withOutputCv(kinds, -1)).toThrow(/outputCv/);
    expect(() => withOutputCv(kinds, Number.NaN)).toThrow(/outputCv/);
    expect(() => parseScenario({ workload: 'cc', outputCv: -0.5 })).toThrow(/outputCv/);
    expect(withOutputCv(kinds, undefined)).toBe(kinds);
  });
});
