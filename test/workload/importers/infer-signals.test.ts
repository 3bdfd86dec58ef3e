import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import {
  createTraceSource,
  formatTrace,
  importMooncake,
  inferSignals,
  parseTrace,
  runNominal,
  traceStats,
  validateTrace,
  type Trace,
} from '../../../src/workload/index.js';
import { eventsOfType, requestsOf } from '../helpers.js';
import { handMade, mooncakeLine } from './fixtures.js';

/** Import hand-made Mooncake rows [seconds, hash ids, output?] and infer their signals. */
function infer(name: string, rows: [number, number[], number?][], options = {}): Trace {
  const file = handMade(name, rows.map(([t, hashIds, output]) => mooncakeLine(t * 1000, hashIds, hashIds.length * 512, output ?? 10)));
  const trace = inferSignals(importMooncake(file), options);
  validateTrace(trace, name);
  return trace;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** [id, branch, version, inferred] of each request line. */
function placements(trace: Trace): [number, number, number, string][] {
  return requestsOf(trace).map((r) => [r.id, r.branch!, r.version, r.inferred!]);
}

describe('signal inference', () => {
  // Block 0 is a system prompt every conversation starts with.
  const conversation: [number, number[], number?][] = [
    [0, [0, 1, 2, 3]], // 0: new branch 0
    [0, [0, 10, 11]], // 1: branch 0 is still running: new branch 1; block 0 is now shared
    [60, [0, 1, 2, 3, 4, 5]], // 2: extends branch 0's last prompt: continuation
    [70, [0, 20]], // 3: only the shared block in common: new branch 2
    [120, range(0, 6).concat(range(6, 10))], // 4: continuation, branch 0 now has 10 blocks
    [180, [0, 1, 30, 31]], // 5: keeps 2 of 10 blocks (< half) of a long branch: compaction
    [240, [0, 1, 30, 31, 32]], // 6: continuation at version 1
    [250, [0, 10, 11, 12]], // 7: continuation of branch 1
  ];

  it('continues, compacts and starts branches by the rule', () => {
    const trace = infer('conv.jsonl', conversation);
    expect(placements(trace)).toEqual([
      [0, 0, 0, 'branch'],
      [1, 1, 0, 'branch'],
      [2, 0, 0, 'continuation'],
      [3, 2, 0, 'branch'],
      [4, 0, 0, 'continuation'],
      [5, 0, 1, 'compaction'],
      [6, 0, 1, 'continuation'],
      [7, 1, 0, 'continuation'],
    ]);
    expect(eventsOfType(trace, 'compact')).toEqual([{ type: 'compact', branch: 0, version: 1, t: 180 }]);
    expect(eventsOfType(trace, 'agent').map((a) => [a.agent, a.branch, a.t])).toEqual([
      [0, 0, 0],
      [1, 1, 0],
      [2, 2, 70],
    ]);
  });

  it('ends each branch right after its last request, and the trace survives a write and a read', () => {
    const trace = infer('conv.jsonl', conversation);
    const types = trace.events.map((e) => (e.type === 'request' ? `r${e.id}` : e.type === 'end' ? `end${e.branch}` : e.type));
    expect(types).toEqual(['agent', 'r0', 'agent', 'r1', 'r2', 'agent', 'r3', 'end2', 'r4', 'compact', 'r5', 'r6', 'end0', 'r7', 'end1']);
    expect(eventsOfType(trace, 'end').map((e) => [e.branch, e.after])).toEqual([
      [2, 3],
      [0, 6],
      [1, 7],
    ]);
    expect(parseTrace(formatTrace(trace), 'round-trip.jsonl')).toEqual(trace);
  });

  it('counts inferred requests in trace stats', () => {
    const s = traceStats(infer('conv.jsonl', conversation).events);
    expect(s).toMatchObject({
      requests: 8,
      agents: 3,
      branches: 3,
      compactions: 1,
      requestsWithInferredSignals: 8,
      inferredContinuations: 4,
      inferredCompactions: 1,
      inferredBranches: 3,
    });
  });

  it('does not link to a branch whose last call is still running (nominal service time)', () => {
    // 1000 output tokens: busy for 0.5 + 10 s.
    const trace = infer('busy.jsonl', [
      [0, [0, 1, 2], 1000],
      [5, [0, 1, 2, 3]],
      [11, [0, 1, 2, 3, 4]],
    ]);
    expect(placements(trace).map((p) => p[3])).toEqual(['branch', 'branch', 'continuation']);
    expect(requestsOf(trace)[2]!.branch).toBe(1);
  });

  it('starts a new branch when a short branch or more than half of a branch is kept', () => {
    const long = range(0, 10);
    const trace = infer('kept.jsonl', [
      [0, long],
      [60, long.slice(0, 6).concat([50])], // keeps 6 of 10: a new branch, not a compaction
      [120, [100, 101, 102]],
      [180, [100, 103]], // keeps 1 of 3 blocks, but the branch is short
    ]);
    expect(placements(trace).map((p) => p[3])).toEqual(['branch', 'branch', 'branch', 'branch']);
    // Tuning the thresholds turns both into compactions.
    const loose = infer('kept.jsonl', [[0, long], [60, long.slice(0, 6).concat([50])], [120, [100, 101, 102]], [180, [100, 103]]], { compactKeepBelow: 0.7, minCompactBlocks: 3 });
    expect(placements(loose).map((p) => p[3])).toEqual(['branch', 'compaction', 'branch', 'compaction']);
  });

  it('forgets the least recently used branch past maxBranches', () => {
    const rows: [number, number[]][] = [
      [0, [1, 2]],
      [10, [3, 4]],
      [20, [5, 6]], // table of 2: branch 0 is forgotten
      [30, [1, 2, 7]],
      [40, [5, 6, 8]],
    ];
    expect(placements(infer('lru.jsonl', rows, { maxBranches: 2 })).map((p) => p[3])).toEqual(['branch', 'branch', 'branch', 'branch', 'continuation']);
    expect(placements(infer('lru.jsonl', rows)).map((p) => p[3])).toEqual(['branch', 'branch', 'branch', 'continuation', 'continuation']);
  });

  it('gives prompts without a full block a branch of their own', () => {
    const file = handMade('tiny.jsonl', [mooncakeLine(0, [0], 300), mooncakeLine(60, [0], 400)]);
    const trace = inferSignals(importMooncake(file));
    expect(placements(trace)).toEqual([
      [0, 0, 0, 'branch'],
      [1, 1, 0, 'branch'],
    ]);
  });

  it('replays: every request arrives at its own time and every branch ends', () => {
    const trace = infer('conv.jsonl', conversation);
    const arrivals: [number, number][] = [];
    const ended: number[] = [];
    runNominal(createTraceSource(trace), 1000, { onArrive: (r, t) => arrivals.push([r.branch, t]), onBranchEnd: (b) => ended.push(b) });
    expect(arrivals.map(([, t]) => t)).toEqual(conversation.map(([t]) => t));
    expect(arrivals.map(([b]) => b)).toEqual([0, 1, 0, 2, 0, 0, 0, 1]);
    expect(ended.sort()).toEqual([0, 1, 2]);
  });

  it('refuses traces that already carry signals, and bad options', () => {
    const trace = infer('conv.jsonl', conversation);
    expect(() => inferSignals(trace)).toThrow(/already has harness signals/);
    const raw = importMooncake(handMade('one.jsonl', [mooncakeLine(0, [0])]));
    expect(() => inferSignals(raw, { maxBranches: 0 })).toThrow(InputError);
    expect(() => inferSignals(raw, { compactKeepBelow: 1.5 })).toThrow(/compactKeepBelow/);
  });
});
