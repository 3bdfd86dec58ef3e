import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/index.js';
import {
  createTraceSource,
  formatTrace,
  generateTrace,
  listWorkloadPresets,
  loadWorkloadPreset,
  nextBurstAt,
  parseTrace,
  runNominal,
  type BurstSpecInput,
  type Trace,
} from '../../src/workload/index.js';
import { burstSchema } from '../../src/workload/bursts.js';

/** First-request time of every sub-agent branch in a trace. */
function subagentStarts(trace: Trace): number[] {
  const sub = new Set(trace.events.flatMap((e) => (e.type === 'subagent' ? [e.branch] : [])));
  const seen = new Set<number>();
  const starts: number[] = [];
  for (const e of trace.events) {
    if (e.type === 'request' && e.branch !== undefined && sub.has(e.branch) && !seen.has(e.branch)) {
      seen.add(e.branch);
      starts.push(e.t);
    }
  }
  return starts.sort((a, b) => a - b);
}

/** Most sub-agent launches within any `span` seconds. */
function peak(starts: number[], span: number): number {
  let best = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[i]! - starts[j]! > span) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const bursts: BurstSpecInput = { periodSeconds: 180, jitterSeconds: 5, probability: 0.06 };

describe('synchronised sub-agent bursts', () => {
  it('are off by default: no shipped preset has them, and preset traces are what they were before the feature', () => {
    for (const name of listWorkloadPresets()) expect(loadWorkloadPreset(name).bursts, name).toBeUndefined();
    const cc = generateTrace(loadWorkloadPreset('cc'), { seed: 3, minutes: 20 });
    expect(cc.events.some((e) => e.type === 'request' && e.sync !== undefined)).toBe(false);
    // `trace gen --workload X --minutes 20 --seed 3` output before bursts existed (commit 56ad48c), when cc's
    // output lengths had cv 1.3 (now 2.0, output-spread.ts): outputCv 1.3 gives back that traffic, except that
    // since the compaction cap (harness.ts compact) request 4567's kept context is capped below the one it
    // replaces (274,463 -> 234,974 input tokens), which also renumbers the blocks allocated after it.
    const ccBefore = generateTrace(loadWorkloadPreset('cc'), { seed: 3, minutes: 20, outputCv: 1.3 });
    expect(sha(formatTrace(ccBefore))).toBe('0eb8d7ca2b1b3677e22fcb8980f035ef7e8ec00007ed25e0097a967f8f65f183');
    expect(sha(formatTrace(generateTrace(loadWorkloadPreset('osworld'), { seed: 3, minutes: 20 })))).toBe('67142ce703cbe62be19c80368073dca6e29ed343c29d39cb894994069bf0e94b');
    expect(sha(formatTrace(generateTrace(loadWorkloadPreset('cc'), { seed: 1, minutes: 20, arrivalRate: 0.05, outputCv: 1.3 })))).toBe(
      'cdd79bb5272ece33349cf1e9259cbb2f144673a24371d1090229f1175da61f13',
    );
  });

  it('hold every sub-agent launch to a burst instant, so many agents fan out at once', () => {
    const preset = loadWorkloadPreset('cc');
    const on = generateTrace(preset, { seed: 2, minutes: 30, agents: 126, bursts: burstSchema.parse(bursts) });
    const off = generateTrace(preset, { seed: 2, minutes: 30, agents: 126 });
    const starts = subagentStarts(on);
    expect(starts.length).toBeGreaterThan(100);
    for (const t of starts) {
      const tick = Math.floor(t / 180) * 180;
      expect(t - tick, `sub-agent start at ${t}`).toBeLessThanOrEqual(5);
    }
    // Within one burst's jitter: dozens at once, against a handful without bursts.
    const burstPeak = peak(starts, 5);
    const plainPeak = peak(subagentStarts(off), 5);
    expect(burstPeak).toBeGreaterThan(40);
    expect(burstPeak).toBeGreaterThan(8 * plainPeak);
    // Held calls carry the period for replays.
    const held = on.events.filter((e) => e.type === 'request' && e.sync === 180);
    expect(held.length).toBe(starts.length);
  });

  it('the bursty-cc scenario turns them on for cc only through its file', () => {
    const run = loadScenario('bursty-cc').run;
    expect(run.workload).toBe('cc');
    expect(run.bursts).toMatchObject({ periodSeconds: 240 });
    expect(loadScenario('steady-cc').run.bursts).toBeUndefined();
  });

  it('a replay releases a held call at the next burst instant of its own clock, then its jitter', () => {
    const trace = parseTrace(
      [
        '{"type":"header","format":"autopoiesis-trace","version":1,"model":"glm-5.2","source":"hand"}',
        '{"type":"agent","agent":0,"branch":0,"t":0}',
        '{"type":"request","id":0,"agent":0,"branch":0,"t":0,"input":100,"output":5}',
        '{"type":"subagent","branch":1,"parent":0,"agent":0,"t":1}',
        '{"type":"request","id":1,"agent":0,"branch":1,"t":62,"after":[0],"wait":2,"sync":60,"input":200,"output":5}',
        '{"type":"end","branch":1,"after":1,"t":70}',
        '{"type":"end","branch":0,"after":0,"t":71}',
      ].join('\n'),
      'hand.jsonl',
    );
    for (const [service, expected] of [
      [1, 62],
      [75, 122],
      [120, 122],
    ] as const) {
      let arrival = -1;
      runNominal(createTraceSource(trace), 1000, { onArrive: (r, t) => void (r.inputTokens === 200 && (arrival = t)) }, () => service);
      expect(arrival, `r0 served in ${service} s`).toBe(expected);
    }
    // Time-scaled replays scale the period too.
    let scaled = -1;
    runNominal(createTraceSource(trace, { timeScale: 0.5 }), 1000, { onArrive: (r, t) => void (r.inputTokens === 200 && (scaled = t)) }, () => 40);
    expect(scaled).toBe(nextBurstAt(40, 30) + 1);
  });
});
