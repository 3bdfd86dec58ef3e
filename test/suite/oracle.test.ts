import { describe, expect, it } from 'vitest';
import { buildSnapshot, evaluatePolicy, replaySnapshot } from '../../src/evaluate/index.js';
import { MECHANICS_PRESETS, parseSplit } from '../../src/sim/index.js';
import { availabilityPlacements, completionsIn, computeOracles, downSeconds, splitCandidates, SuitePool, SUITE_CAP_FACTOR, windowOracle, type SplitRun } from '../../src/suite/index.js';

/** A hand-made run: one entry per minute after a warm-up of `warmup` s. */
function run(split: string, perMinute: number[], warmup = 0, lastSeconds = 60): SplitRun {
  const slices = perMinute.map((c, i) => ({ start: warmup + i * 60, end: warmup + i * 60 + (i === perMinute.length - 1 ? lastSeconds : 60), completions: c }));
  const scoredSeconds = slices[slices.length - 1]!.end - warmup;
  const completed = perMinute.reduce((s, x) => s + x, 0);
  return { split, rate: completed / scoredSeconds, throughput: completed / scoredSeconds, completed, scoredSeconds, drained: true, ttftP95: 1, e2eMean: 1, tTotal: scoredSeconds, slices };
}

describe('split candidates', () => {
  it('are 1P..(N-1)P on a cluster of one kind, prefill nodes first', () => {
    const c = splitCandidates(['gb300', 'gb300', 'gb300', 'gb300']);
    expect(c.map((x) => x.label)).toEqual(['1P3D', '2P2D', '3P1D']);
    expect(c[1]!.roles).toEqual(parseSplit('2P2D', 4));
  });

  it('are every prefill count per kind on a mixed cluster, with at least one P and one D', () => {
    const kinds = ['gb300', 'h200', 'gb300', 'h200', 'gb300'];
    const c = splitCandidates(kinds);
    // (3+1) x (2+1) counts, minus all-P and all-D.
    expect(c).toHaveLength(10);
    expect(new Set(c.map((x) => x.label)).size).toBe(10);
    for (const x of c) {
      expect(x.roles).toContain('P');
      expect(x.roles).toContain('D');
      for (const k of x.kinds) expect(x.roles.filter((r, j) => kinds[j] === k && r === 'P').length).toBe(x.prefill[x.kinds.indexOf(k)]);
    }
    const one = c.find((x) => x.label === 'gb300:2P1D+h200:1P1D')!;
    // The first two gb300 nodes (0, 2) and the first h200 (1) prefill.
    expect(one.roles).toEqual(['P', 'P', 'P', 'D', 'D']);
  });
});

describe('window oracle', () => {
  it('takes the best split of each 10-minute window and sums their completions', () => {
    const a = run('1P2D', [...Array(10).fill(10), ...Array(10).fill(2)]);
    const b = run('2P1D', [...Array(10).fill(3), ...Array(10).fill(9)]);
    const w = windowOracle([a, b], 0);
    expect(w.windows.map((x) => [x.split, x.completions])).toEqual([
      ['1P2D', 100],
      ['2P1D', 90],
    ]);
    expect(w.throughput).toBeCloseTo(190 / 1200, 4);
    expect(w.throughput).toBeGreaterThan(Math.max(a.rate, b.rate));
  });

  it('tiles the best static run\'s scored period, its last window shorter, cutting other runs pro rata', () => {
    // The best run ends 30 s into its 12th minute; the other runs on.
    const best = run('1P2D', [...Array(11).fill(10), 5], 120, 30);
    const other = run('2P1D', [...Array(11).fill(4), 30, 30], 120);
    const w = windowOracle([other, best], 120);
    expect(w.from).toBe(120);
    expect(w.to).toBe(120 + 690);
    expect(w.windows).toHaveLength(2);
    expect(w.windows[1]).toMatchObject({ start: 720, end: 810, split: '2P1D' });
    // Window 2 is [720, 810): best serves 10 + 5; other a whole minute (4) and half of its 12th (15).
    expect(completionsIn(best.slices, 720, 810)).toBe(15);
    expect(completionsIn(other.slices, 720, 810)).toBe(4 + 15);
    expect(w.windows[0]).toMatchObject({ split: '1P2D', completions: 100 });
    expect(w.windows[1]!.completions).toBe(19);
    expect(w.throughput).toBeCloseTo((100 + 19) / 690, 4);
  });
});

describe('oracles of a tiny snapshot', () => {
  const snapshot = buildSnapshot({
    workload: 'cc',
    agents: 24,
    roles: parseSplit('1P2D', 3),
    nodeKinds: ['gb300', 'gb300', 'gb300'],
    mechanics: MECHANICS_PRESETS['evolving-infra'],
    warmupMinutes: 1,
    minutes: 12,
    seed: 5,
  });
  const input = { name: 'tiny', seed: 5, contentHash: 'tiny', source: { kind: 'inline' as const, key: 'tiny', snapshot }, nodeKinds: snapshot.nodeKinds, warmupSeconds: snapshot.warmupSeconds };

  it('picks the split with the highest throughput, measured as evaluatePolicy measures a policy', async () => {
    const pool = new SuitePool(1);
    const { result } = await computeOracles(input, { pool, codeVersion: 'test' });
    expect(result.runs.map((r) => r.split)).toEqual(['1P2D', '2P1D']);
    const direct = result.runs.map((r) => replaySnapshot({ ...snapshot, roles: parseSplit(r.split, 3) }, undefined, SUITE_CAP_FACTOR).sim.metrics.throughput);
    expect(result.runs.map((r) => r.throughput)).toEqual(direct);
    const best = Math.max(...direct);
    expect(result.staticBest.throughput).toBe(best);
    expect(result.staticBest.split).toBe(result.runs[direct.indexOf(best)]!.split);
    // A policy that never reschedules, evaluated at the best split, serves exactly the oracle's throughput.
    const never = { name: 'never', source: 'function shouldReschedule(ctx) { return false; }\nfunction schedule(ctx) { return ctx.plan; }' };
    const e = evaluatePolicy({ ...snapshot, roles: parseSplit(result.staticBest.split, 3) }, never, { schedCost: { kind: 'zero' }, capFactor: SUITE_CAP_FACTOR });
    expect(e.failures).toEqual([]);
    expect(e.metrics.throughput).toBe(result.staticBest.throughput);
    expect(result.window.throughput).toBeGreaterThanOrEqual(result.staticBest.throughput);
    expect(result.window.windows.length).toBe(Math.ceil((result.window.to - result.window.from) / 600));
  });

  it('gives the same result on worker threads as in this thread', async () => {
    const one = new SuitePool(1);
    const two = new SuitePool(2);
    try {
      const [a, b] = await Promise.all([computeOracles(input, { pool: one, codeVersion: 'test' }), computeOracles(input, { pool: two, codeVersion: 'test' })]);
      expect(b.result).toEqual(a.result);
    } finally {
      await two.close();
    }
  });
});

describe('placements when nodes go down', () => {
  it('counts each node\'s time down up to the horizon', () => {
    const m = [
      { node: 2, at: 100, event: 'down' as const },
      { node: 0, at: 150, event: 'down' as const },
      { node: 0, at: 200, event: 'up' as const },
    ];
    expect(downSeconds(3, m, 1000)).toEqual([50, 0, 900]);
  });

  it('adds, per candidate, its minority role on the most available nodes', () => {
    const kinds = ['gb300', 'gb300', 'gb300'];
    const base = splitCandidates(kinds);
    const extra = availabilityPlacements(base, kinds, [{ node: 2, at: 100, event: 'down' }], 1000);
    // 1P2D already has its one P on node 0 (never down); 2P1D's D moves from node 2 to node 0.
    expect(extra.map((c) => [c.label, c.roles])).toEqual([['2P1D[D=0]', ['D', 'P', 'P']]]);
    expect(availabilityPlacements(base, kinds, [], 1000)).toEqual([]);
  });

  it('runs the placements as candidates of their own, each at its own roles', async () => {
    const snapshot = buildSnapshot({
      workload: 'cc',
      agents: 16,
      roles: parseSplit('2P1D', 3),
      nodeKinds: ['gb300', 'gb300', 'gb300'],
      mechanics: MECHANICS_PRESETS['evolving-infra'],
      warmupMinutes: 1,
      minutes: 4,
      membership: [{ node: 2, at: 90, event: 'down' }],
      seed: 4,
    });
    const input = { name: 'lost', seed: 4, contentHash: 'lost', source: { kind: 'inline' as const, key: 'lost', snapshot }, nodeKinds: snapshot.nodeKinds, warmupSeconds: 60, membership: snapshot.membership, horizonSeconds: 60 + 240 * SUITE_CAP_FACTOR };
    const { result } = await computeOracles(input, { pool: new SuitePool(1), codeVersion: 'test' });
    expect(result.runs.map((r) => r.split)).toEqual(['1P2D', '2P1D', '2P1D[D=0]']);
    const moved = replaySnapshot({ ...snapshot, roles: ['D', 'P', 'P'] }, undefined, SUITE_CAP_FACTOR).sim.metrics.throughput;
    expect(result.runs[2]!.throughput).toBe(moved);
    expect(result.staticBest.throughput).toBe(Math.max(...result.runs.map((r) => r.throughput)));
  });
});
