import { describe, expect, it } from 'vitest';
import {
  createTraceSource,
  generateTrace,
  loadWorkloadPreset,
  parseTrace,
  runNominal,
  type SimRequest,
  type Trace,
} from '../../src/workload/index.js';
import { eventsOfType, requestsOf } from './helpers.js';

const HEADER = '{"type":"header","format":"autopoiesis-trace","version":1,"model":"glm-5.2","source":"hand"}';

/**
 * Agent 0 (root branch 0) starts at t=1: r0, then r1 two seconds after r0,
 * while a fork (branch 1) runs r2 half a second after r0; r3 waits for r1 and
 * r2. A request without structure (r4) just arrives at t=3.
 */
const HAND = [
  HEADER,
  '{"type":"agent","agent":0,"branch":0,"t":1}',
  '{"type":"request","id":0,"agent":0,"branch":0,"t":1,"input":1024,"output":10,"blocks":[0,1]}',
  '{"type":"request","id":4,"t":3,"input":100,"output":5}',
  '{"type":"fork","branch":1,"parent":0,"agent":0,"t":4}',
  '{"type":"request","id":2,"agent":0,"branch":1,"t":4.5,"after":[0],"wait":0.5,"input":1100,"output":10,"blocks":[0,1]}',
  '{"type":"request","id":1,"agent":0,"branch":0,"t":6,"after":[0],"wait":2,"input":1100,"output":10,"blocks":[0,1]}',
  '{"type":"end","branch":1,"after":2,"t":7.5}',
  '{"type":"request","id":3,"agent":0,"branch":0,"t":10,"after":[1,2],"wait":1,"input":1200,"output":10,"blocks":[0,1]}',
  '{"type":"end","branch":0,"after":3,"t":13}',
].join('\n');

/** Arrival time of each trace request (matched by input size, unique here), served in `service` seconds. */
function replay(trace: Trace, service: number, timeScale = 1): { arrivals: Map<number, number>; ends: [number, number][] } {
  const arrivals = new Map<number, number>();
  const ends: [number, number][] = [];
  runNominal(
    createTraceSource(trace, { timeScale }),
    1000,
    {
      onArrive: (r, t) => arrivals.set(r.inputTokens, t),
      onBranchEnd: (b, t) => ends.push([b, t]),
    },
    () => service,
  );
  return { arrivals, ends };
}

describe('trace replay', () => {
  const trace = parseTrace(HAND, 'hand.jsonl');

  it('releases a request `wait` seconds after the last of its dependencies completes', () => {
    const { arrivals, ends } = replay(trace, 3);
    // r0 at 1, done 4; r2 at 4.5 (done 7.5); r1 at 6 (done 9); r3 at 9 + 1; r4 at its own time.
    expect(arrivals.get(1024)).toBe(1);
    expect(arrivals.get(1100 /* r2 and r1 share input; the later one wins */)).toBe(6);
    expect(arrivals.get(1200)).toBe(10);
    expect(arrivals.get(100)).toBe(3);
    expect(ends).toEqual([
      [1, 7.5],
      [0, 13],
    ]);
  });

  it('follows the real latencies, not the recorded times', () => {
    const { arrivals } = replay(trace, 10);
    // r0 done at 11; r1 at 13 (done 23); r2 at 11.5 (done 21.5); r3 at 24.
    expect(arrivals.get(1200)).toBe(24);
  });

  it('scales recorded times and waits', () => {
    const { arrivals } = replay(trace, 3, 2);
    // r0 at 2, done 5; r1 at 5 + 4 = 9 (done 12); r2 at 6 (done 9); r3 at 12 + 2.
    expect(arrivals.get(1024)).toBe(2);
    expect(arrivals.get(100)).toBe(6);
    expect(arrivals.get(1200)).toBe(14);
  });

  it('passes the harness signals and block ids through', () => {
    const source = createTraceSource(trace);
    expect(source.model).toBe('glm-5.2');
    expect(source.name).toBe('hand');
    const first = source.start().find((e) => e.kind === 'request')!;
    expect(first.kind === 'request' && first.request).toMatchObject({ id: 0, agent: 0, branch: 0, version: 0, inputTokens: 1024, blocks: [0, 1] });
    const requests: SimRequest[] = [];
    runNominal(createTraceSource(trace), 100, { onArrive: (r) => requests.push(r) });
    expect(requests.find((r) => r.inputTokens === 100)).toMatchObject({ agent: -1, branch: -1 });
    // Dense ids in emission order (not arrival order).
    expect(requests.map((r) => r.id).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('feeds timed arrivals in bounded batches through wake events', () => {
    const lines = [HEADER];
    for (let i = 0; i < 5000; i++) lines.push(`{"type":"request","id":${i},"t":${i * 7.2},"input":10,"output":1}`);
    const big = parseTrace(lines.join('\n'), 'big.jsonl');
    const source = createTraceSource(big);
    const first = source.start();
    expect(first.filter((e) => e.kind === 'request').length).toBeLessThan(20);
    expect(first.filter((e) => e.kind === 'wake')).toHaveLength(1);
    const seen: number[] = [];
    runNominal(createTraceSource(big), 1e9, { onArrive: (_r, t) => seen.push(t) });
    expect(seen).toHaveLength(5000);
    expect(Math.max(...seen.map((t, i) => Math.abs(t - i * 7.2)))).toBeLessThan(1e-9);

    const burst = parseTrace([HEADER, ...Array.from({ length: 3000 }, (_, i) => `{"type":"request","id":${i},"t":5,"input":10,"output":1}`)].join('\n'), 'burst');
    expect(createTraceSource(burst).start().length).toBeLessThanOrEqual(513);
    let n = 0;
    runNominal(createTraceSource(burst), 100, { onArrive: (_r, t) => (n += t === 5 ? 1 : 0) });
    expect(n).toBe(3000);
  });

  it('replays a generated trace closed-loop per agent', () => {
    const generated = generateTrace(loadWorkloadPreset('putnam'), { seed: 3, agents: 10, minutes: 30 });
    const recorded = requestsOf(generated);
    // With the same nominal latencies, replay reproduces the recorded arrival times.
    const times: number[] = [];
    runNominal(createTraceSource(generated), 1800, { onArrive: (_r, t) => times.push(t) });
    const expected = recorded.map((r) => r.t).sort((a, b) => a - b);
    expect(times.length).toBe(expected.length);
    times.sort((a, b) => a - b);
    expect(Math.max(...times.map((t, i) => Math.abs(t - expected[i]!)))).toBeLessThan(1e-6);
    // Slower service: the same requests, later.
    let slow = 0;
    runNominal(createTraceSource(generated), 1800, { onArrive: () => slow++ }, (r) => 1 + r.outputTokens * 0.03);
    expect(slow).toBeLessThan(expected.length);
  });

  it('keeps the recorded number of agents: a replacing agent starts when the one it replaced ends', () => {
    const n = 10;
    const generated = generateTrace(loadWorkloadPreset('putnam'), { seed: 5, agents: n, minutes: 60 });
    expect(eventsOfType(generated, 'agent').filter((a) => a.replaces !== undefined).length).toBeGreaterThan(n);
    const agentOf = new Map<number, number>();
    const branchCount = new Map<number, number>();
    for (const e of generated.events) {
      if (e.type === 'agent' || e.type === 'fork' || e.type === 'subagent') {
        agentOf.set(e.branch, e.agent);
        branchCount.set(e.agent, (branchCount.get(e.agent) ?? 0) + 1);
      }
    }
    /** Most agents alive at once when served three times slower than recorded. */
    const peakAgents = (openAgents: boolean): number => {
      const left = new Map(branchCount);
      const alive = new Set<number>();
      let peak = 0;
      runNominal(
        createTraceSource(generated, { openAgents }),
        3600,
        {
          onArrive: (r) => {
            alive.add(r.agent);
            peak = Math.max(peak, alive.size);
          },
          onBranchEnd: (b) => {
            const agent = agentOf.get(b)!;
            left.set(agent, left.get(agent)! - 1);
            if (left.get(agent) === 0) alive.delete(agent);
          },
        },
        (r) => 3 * (0.5 + r.outputTokens * 0.01),
      );
      return peak;
    };
    expect(peakAgents(false)).toBe(n);
    expect(peakAgents(true)).toBeGreaterThan(n);
  });
});
