import { describe, expect, it } from 'vitest';
import { SnapshotNotReady, snapshotFromCapture } from '../../src/dataplane/index.js';
import { evaluatePolicy, parseSchedCost } from '../../src/evaluate/index.js';
import { UsageError } from '../../src/common/errors.js';
import { createTraceSource, generateTrace, loadWorkloadPreset, validateTrace, type RequestLine } from '../../src/workload/index.js';
import { flipper, makePlane, seed, smallScenario, stepUntil } from './helpers.js';

const requestsOf = (events: { type: string }[]) => events.filter((e): e is RequestLine => e.type === 'request');

describe('snapshots from the ring', () => {
  it('holds what arrived in the window, replays, and leaves the ring as it was', () => {
    const plane = makePlane(smallScenario({ minutes: 10 }), { name: 'flipper', code: flipper(60), candidateId: null });
    try {
      stepUntil(plane, 480);
      expect(plane.simSeconds).toBe(480);
      const before = plane.records();
      const snapshot = plane.snapshot({ windowMinutes: 3, warmupMinutes: 2 });
      const after = plane.records();
      expect(after).toHaveLength(before.length);
      after.forEach((r, i) => expect(r).toBe(before[i]));

      expect(snapshot.warmupSeconds).toBe(120);
      expect(snapshot.windowSeconds).toBe(180);
      expect(snapshot.trace.header).toMatchObject({ from: 180, to: 480, model: 'glm-5.2' });
      expect(() => validateTrace(snapshot.trace)).not.toThrow();
      // Roles at the start of the snapshot: those recorded at 180 s.
      const base = before.find((r) => r.end === 180)!;
      expect(snapshot.roles).toEqual(base.nodes.map((n) => n.targetRole ?? n.role));
      expect(snapshot.nodeKinds).toEqual(Array(5).fill('gb300'));

      const requests = requestsOf(snapshot.trace.events);
      const result = plane.finish();
      const arrivals = result.sim.slices.filter((s) => s.start >= 180 && s.start < 480).reduce((n, s) => n + s.arrivals, 0);
      expect(requests.length).toBe(arrivals);
      // Closed-loop dependencies are kept where the releasing request is in the window; the rest arrive on time.
      const chained = requests.filter((r) => r.after.length > 0);
      expect(chained.length).toBeGreaterThan(requests.length / 2);
      expect(requests.some((r) => r.after.length === 0 && r.t > 0)).toBe(true);
      expect(requests.every((r) => r.t >= 0 && r.t < 300)).toBe(true);
      expect(snapshot.trace.events.some((e) => e.type === 'end')).toBe(true);

      const evaluation = evaluatePolicy(snapshot, { name: 'static', source: seed('static-4p5d').code }, { schedCost: parseSchedCost('zero'), sandbox: { cpuLimitMs: 1000 } });
      expect(evaluation.failures).toEqual([]);
      expect(evaluation.drained).toBe(true);
      expect(evaluation.metrics.requestsArrived).toBe(requests.length);
      expect(evaluation.metrics.requestsInFlight).toBe(0);
      expect(evaluation.fitness.tTotal).toBeGreaterThan(0);
    } finally {
      plane.dispose();
    }
  });

  it('is cut from a trace workload too (requests released ahead of time count when they arrive)', () => {
    const scenario = smallScenario({ minutes: 8 });
    const trace = generateTrace(loadWorkloadPreset('cc'), { seed: 3, agents: 10, minutes: 8 });
    const plane = makePlane(scenario, seed('static-4p5d'), { source: createTraceSource(trace) });
    try {
      stepUntil(plane, 360);
      const snapshot = plane.snapshot({ windowMinutes: 4, warmupMinutes: 1 });
      expect(() => validateTrace(snapshot.trace)).not.toThrow();
      const requests = requestsOf(snapshot.trace.events);
      const result = plane.finish();
      const arrivals = result.sim.slices.filter((s) => s.start >= 60 && s.start < 360).reduce((n, s) => n + s.arrivals, 0);
      expect(requests.length).toBe(arrivals);
      const e = evaluatePolicy(snapshot, { name: 'static', source: seed('static-4p5d').code }, { schedCost: parseSchedCost('zero'), sandbox: { cpuLimitMs: 1000 } });
      expect(e.metrics.requestsArrived).toBe(requests.length);
      expect(e.drained).toBe(true);
    } finally {
      plane.dispose();
    }
  });

  it('re-times membership changes and starts down nodes down', () => {
    const scenario = smallScenario({
      nodes: 6,
      split: '2P4D',
      membership: [
        { node: 5, at: 100, event: 'down' },
        { node: 5, at: 250, event: 'up' },
        { node: 4, at: 262.5, event: 'down' },
      ],
    });
    const plane = makePlane(scenario, seed('static-4p5d'));
    try {
      stepUntil(plane, 300);
      const snapshot = plane.snapshot({ windowMinutes: 2, warmupMinutes: 1 });
      expect(snapshot.warmupSeconds + snapshot.windowSeconds).toBe(180);
      expect(snapshot.membership).toEqual([
        { node: 5, at: 0, event: 'down' },
        { node: 5, at: 130, event: 'up' },
        { node: 4, at: 142.5, event: 'down' },
      ]);
      const e = evaluatePolicy(snapshot, { name: 'static', source: seed('static-4p5d').code }, { schedCost: parseSchedCost('zero'), sandbox: { cpuLimitMs: 1000 } });
      expect(e.drained).toBe(true);
    } finally {
      plane.dispose();
    }
  });

  it('shortens the warm-up first when less was recorded, and refuses what the ring cannot hold', () => {
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { ringMinutes: 5 });
    try {
      expect(() => plane.snapshot({ windowMinutes: 1 })).toThrow(SnapshotNotReady);
      stepUntil(plane, 150);
      const s = plane.snapshot({ windowMinutes: 2, warmupMinutes: 2 });
      expect([s.warmupSeconds, s.windowSeconds]).toEqual([30, 120]);
      const short = plane.snapshot({ windowMinutes: 4 });
      expect([short.warmupSeconds, short.windowSeconds]).toEqual([0, 150]);
      expect(() => plane.snapshot({ windowMinutes: 4, warmupMinutes: 2 })).toThrow(UsageError);
      // A capture is plain data: the snapshot can be built later, elsewhere, with the same result.
      const capture = plane.captureWindow({ windowMinutes: 2, warmupMinutes: 2 });
      stepUntil(plane, 200);
      expect(JSON.stringify(snapshotFromCapture(structuredClone(capture)))).toBe(JSON.stringify(s));
    } finally {
      plane.dispose();
    }
  });

  it('cuts a window that ended some minutes ago (a cycle validates on the window before its training one)', () => {
    const plane = makePlane(smallScenario({ minutes: 10 }), seed('static-4p5d'), { ringMinutes: 8 });
    try {
      expect(() => plane.snapshot({ windowMinutes: 1, endMinutesAgo: 2 })).toThrow(SnapshotNotReady);
      stepUntil(plane, 420);
      const training = plane.snapshot({ windowMinutes: 3, warmupMinutes: 1 });
      const previous = plane.snapshot({ windowMinutes: 3, warmupMinutes: 1, endMinutesAgo: 3 });
      expect(training.trace.header).toMatchObject({ from: 180, to: 420 });
      expect(previous.trace.header).toMatchObject({ from: 0, to: 240 });
      expect([previous.warmupSeconds, previous.windowSeconds]).toEqual([60, 180]);
      expect(() => validateTrace(previous.trace)).not.toThrow();
      // Exactly the requests that arrived in [0, 240), the roles recorded at 0.
      const records = plane.records();
      const arrived = records.filter((r) => r.end > 0 && r.end <= 240).reduce((n, r) => n + r.requests.length, 0);
      expect(requestsOf(previous.trace.events).length).toBe(arrived);
      expect(previous.roles).toEqual(records.find((r) => r.end === 0)!.nodes.map((n) => n.targetRole ?? n.role));
      // The same cut as a window asked for when the newest step was at 240 s (the ring only gained steps since).
      const replay = makePlane(smallScenario({ minutes: 10 }), seed('static-4p5d'), { ringMinutes: 8 });
      try {
        stepUntil(replay, 240);
        expect(JSON.stringify(replay.snapshot({ windowMinutes: 3, warmupMinutes: 1 }))).toBe(JSON.stringify(previous));
      } finally {
        replay.dispose();
      }
      expect(() => plane.snapshot({ windowMinutes: 3, warmupMinutes: 3, endMinutesAgo: 3 })).toThrow(UsageError);
      expect(() => plane.snapshot({ windowMinutes: 3, endMinutesAgo: -1 })).toThrow(UsageError);
    } finally {
      plane.dispose();
    }
  });

  it('keeps a fixed number of steps: the ring wraps at its capacity', () => {
    const plane = makePlane(smallScenario(), seed('static-4p5d'), { ringMinutes: 1 });
    try {
      stepUntil(plane, 200);
      const records = plane.records();
      // 60 s of 5 s steps, plus the step a window starts from.
      expect(records).toHaveLength(13);
      expect(records.at(-1)!.end).toBe(200);
      expect(records[0]!.end).toBe(140);
      expect(records.map((r) => r.index)).toEqual(Array.from({ length: 13 }, (_, i) => 28 + i));
      records.slice(1).forEach((r, i) => expect(r.start).toBe(records[i]!.end));
      const s = plane.snapshot({ windowMinutes: 1 });
      expect(s.windowSeconds).toBe(60);
      expect(requestsOf(s.trace.events).length).toBe(records.slice(1).reduce((n, r) => n + r.requests.length, 0));
      expect(() => plane.snapshot({ windowMinutes: 2 })).toThrow(UsageError);
    } finally {
      plane.dispose();
    }
  });
});
