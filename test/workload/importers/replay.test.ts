import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../../src/sim/index.js';
import { formatTrace, importMooncake, importTrace, traceStats } from '../../../src/workload/index.js';
import { HAVE_TRACES, MOONCAKE_FILE, SKIP_NOTE, tmpPath } from './fixtures.js';

describe.skipIf(!HAVE_TRACES)(`imported traces on the simulator${SKIP_NOTE}`, () => {
  it('the full Mooncake trace gets inferred signals on every request', () => {
    const s = traceStats(importTrace('mooncake', MOONCAKE_FILE).events);
    expect(s.requestsWithInferredSignals).toBe(12_031);
    expect(s.inferredContinuations! + s.inferredCompactions! + s.inferredBranches!).toBe(12_031);
    // Conversations come back: a good share of requests continue a branch.
    expect(s.inferredContinuations).toBeGreaterThan(3000);
    expect(s.inferredCompactions).toBeGreaterThan(0);
    expect(s.branches).toBe(s.inferredBranches);
  });

  it('replays open loop at the recorded times; all requests complete, with or without inferred signals', () => {
    const first = importMooncake(MOONCAKE_FILE, { maxLines: 200 });
    const lastArrival = Math.max(...first.events.map((e) => e.t));
    expect(lastArrival).toBeLessThan(120);
    for (const infer of [true, false]) {
      const path = tmpPath(`mooncake-200-${infer}.jsonl`);
      writeFileSync(path, formatTrace(importTrace('mooncake', MOONCAKE_FILE, { maxLines: 200, infer })));
      const scenario = parseScenario({ workload: path, warmupMinutes: 0, minutes: 4 });
      const m = runScenario(scenario).metrics;
      expect(m.requestsArrived).toBe(200);
      expect(m.requestsCompleted).toBe(200);
      expect(m.requestsInFlight).toBe(0);
      expect(m.kvHitRate.actual).toBeGreaterThan(0);
    }
  });

  it('--time-scale 0.5 brings the arrivals in twice as fast', () => {
    const path = tmpPath('mooncake-200-scaled.jsonl');
    writeFileSync(path, formatTrace(importTrace('mooncake', MOONCAKE_FILE, { maxLines: 200 })));
    const slow = runScenario(parseScenario({ workload: path, warmupMinutes: 0, minutes: 0.6 })).metrics;
    const fast = runScenario(parseScenario({ workload: path, warmupMinutes: 0, minutes: 0.6, timeScale: 0.5 })).metrics;
    expect(fast.requestsArrived).toBeGreaterThan(slow.requestsArrived * 1.5);
  });
});
