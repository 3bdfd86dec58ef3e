import { describe, expect, it } from 'vitest';
import { sampleCtx, stdlib, STDLIB_NAMES, type Ctx, type KindModel, type Role, type Slice } from '../../src/policy/index.js';

const { mean, stdError, percentile, meanWorkload, sliceWorkload, phaseCapacity, predictThroughput, splitToRoles, countRoles } =
  stdlib;

const roles = (s: string): Role[] => s.split('') as Role[];

/** A model simple enough to work out by hand. */
const SIMPLE: KindModel = {
  prefill: { c0: 0.1, c1: 0.001, c2: 0, c3: 0 },
  decode: { d0: 0.01, d1: 0, d2: 0.001 },
  kFraction: 0.5,
  tFwd: 1,
  tAcc: 2,
  maxDecodeBatch: 64,
};

function slice(over: Partial<Slice>): Slice {
  return {
    start: 0,
    end: 60,
    arrivals: 10,
    completions: 10,
    meanUncachedTokens: 100,
    meanCachedTokens: 0,
    meanOutputTokens: 101,
    meanAcceptedPerIter: 2,
    meanPrefillQueue: 1,
    meanDecodeQueue: 40,
    ttftP50: 1,
    ttftP95: 2,
    e2eP50: 5,
    e2eP95: 9,
    kvHitRate: 0.5,
    ...over,
  };
}

function simpleCtx(nodeRoles: string, slices: Slice[] = [slice({})]): Ctx {
  const ctx = sampleCtx({ nodes: nodeRoles.length, prefillNodes: 0 });
  ctx.nodes.forEach((n, i) => (n.role = nodeRoles[i] as Role));
  ctx.plan.roles = roles(nodeRoles);
  ctx.model.byKind = { gb300: SIMPLE };
  ctx.window.slices = slices;
  return ctx;
}

describe('stdlib statistics', () => {
  it('mean skips null and non-finite values; NaN of nothing', () => {
    expect(mean([1, 2, 3, null, NaN, undefined, Infinity])).toBe(2);
    expect(mean([])).toBeNaN();
    expect(mean([null])).toBeNaN();
  });

  it('stdError is the sample standard deviation over sqrt(n); Infinity under two values', () => {
    expect(stdError([1, 2, 3, 4])).toBeCloseTo(Math.sqrt(5 / 3) / 2, 12);
    expect(stdError([5, 5, 5])).toBe(0);
    expect(stdError([1])).toBe(Infinity);
    expect(stdError([])).toBe(Infinity);
  });

  it('percentile interpolates between closest ranks and leaves its input alone', () => {
    const xs = [4, 1, 3, 2];
    expect(percentile(xs, 50)).toBe(2.5);
    expect(percentile(xs, 0)).toBe(1);
    expect(percentile(xs, 100)).toBe(4);
    expect(percentile(xs, 95)).toBeCloseTo(3.85, 12);
    expect(xs).toEqual([4, 1, 3, 2]);
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile(xs, 101)).toThrow(RangeError);
  });
});

describe('stdlib workload', () => {
  it('weights input means by arrivals and output means by completions', () => {
    const ctx = simpleCtx('PD', [
      slice({ arrivals: 1, meanUncachedTokens: 100, completions: 0, meanOutputTokens: 50, meanDecodeQueue: 10 }),
      slice({ arrivals: 3, meanUncachedTokens: 200, completions: 2, meanOutputTokens: 70, meanDecodeQueue: 30 }),
      slice({ arrivals: 0, meanUncachedTokens: null, completions: 1, meanOutputTokens: 10, meanAcceptedPerIter: null, meanDecodeQueue: 20 }),
    ]);
    const w = meanWorkload(ctx)!;
    expect(w.uncached).toBe(175);
    expect(w.output).toBeCloseTo((70 * 2 + 10) / 3, 12);
    expect(w.accepted).toBe(2);
    expect(w.decodeQueue).toBe(20);
    expect(w.restored).toBe(0);
  });

  it('is null when nothing was measured, and slices borrow missing fields from the window', () => {
    const empty = simpleCtx('PD', [slice({ arrivals: 0, completions: 0, meanUncachedTokens: null, meanOutputTokens: null })]);
    expect(meanWorkload(empty)).toBeNull();
    expect(predictThroughput(empty, roles('PD'))).toBe(0);
    const ctx = simpleCtx('PD', [slice({ meanOutputTokens: 300 }), slice({ meanOutputTokens: null, meanUncachedTokens: 50 })]);
    const w1 = sliceWorkload(ctx, 1)!;
    expect(w1.uncached).toBe(50);
    expect(w1.output).toBe(300);
    expect(() => sliceWorkload(ctx, 5)).toThrow(RangeError);
  });
});

describe('stdlib throughput predictor', () => {
  // Prefill: A = 100*101/2 = 5050 (c2 = 0), T_P = 0.1 + 0.001*100 = 0.2 s -> 5 req/s per node.
  // Decode, 2 D nodes, q_D = 40 and q_P = 1: B = 20.5, T_D = 0.01 + 0.001*20.5 = 0.0305 s,
  // I = (101 - 1) / 2 = 50 iterations -> 20.5 / (50 * 0.0305) = 13.44 req/s per node.
  it('follows the documented formulas', () => {
    const ctx = simpleCtx('PPDD');
    const cap = phaseCapacity(ctx, roles('PPDD'));
    expect(cap.prefill).toBeCloseTo(10, 10);
    expect(cap.decode).toBeCloseTo(2 * (20.5 / (50 * 0.0305)), 10);
    expect(predictThroughput(ctx, roles('PPDD'))).toBeCloseTo(10, 10);
    // 3P1D: B = 41 per node, T_D = 0.051 -> 41 / 2.55 = 16.08 req/s; prefill 15.
    expect(predictThroughput(ctx, roles('PPPD'))).toBeCloseTo(15, 10);
    expect(phaseCapacity(ctx, roles('PPPD')).decode).toBeCloseTo(41 / (50 * 0.051), 10);
    expect(predictThroughput(ctx, roles('PPPP'))).toBe(0);
    expect(predictThroughput(ctx, roles('DDDD'))).toBe(0);
  });

  // Intended change (planner study): decode batches are sized from the requests
  // waiting for prefill as well as those in decode, since a split with more
  // prefill hands the prefill backlog to decode.
  it('sizes decode batches from the prefill backlog too, so a prefill-bound window does not underrate decode', () => {
    const starved = simpleCtx('PPPD', [slice({ meanPrefillQueue: 60, meanDecodeQueue: 4 })]);
    const w = meanWorkload(starved)!;
    expect(w.prefillQueue).toBe(60);
    expect(sliceWorkload(starved, 0)!.prefillQueue).toBe(60);
    // 1 D node: B = 64 (60 + 4, at the batch cap 64), T_D = 0.01 + 0.064 = 0.074 s -> 64 / (50 * 0.074) req/s.
    expect(phaseCapacity(starved, roles('PPPD')).decode).toBeCloseTo(64 / (50 * 0.074), 10);
    // Without the prefill queue (a hand-made workload), the decode batch is q_D / nD = 4.
    const noPq = { ...w, prefillQueue: undefined };
    expect(phaseCapacity(starved, roles('PPPD'), noPq).decode).toBeCloseTo(4 / (50 * 0.014), 10);
  });

  it('uses the phi term, the batch cap and the kind tAcc when t_acc is unmeasured', () => {
    const ctx = simpleCtx('PD', [slice({ meanDecodeQueue: 1000, meanAcceptedPerIter: null })]);
    ctx.model.byKind.gb300 = { ...SIMPLE, decode: { d0: 0.01, d1: 0.02, d2: 0.001 }, maxDecodeBatch: 64, tAcc: 4 };
    const b = 64;
    const t = 0.01 + 0.02 * (1 - Math.pow(1 - 0.5, 1 * b)) + 0.001 * b;
    const iterations = (101 - 1) / 4;
    expect(phaseCapacity(ctx, roles('PD')).decode).toBeCloseTo(b / (iterations * t), 10);
  });

  it('counts only up nodes of kinds it has a model for, and takes an explicit workload', () => {
    const ctx = simpleCtx('PPDD');
    ctx.nodes[1]!.state = 'down';
    expect(phaseCapacity(ctx, roles('PPDD')).prefill).toBeCloseTo(5, 10);
    ctx.nodes[0]!.kind = 'unknown-kind';
    expect(phaseCapacity(ctx, roles('PPDD')).prefill).toBe(0);
    ctx.nodes[0]!.kind = '__proto__';
    expect(phaseCapacity(ctx, roles('PPDD')).prefill).toBe(0);
    const w = { uncached: 100, cached: 0, output: 101, accepted: 2, restored: 0, decodeQueue: 40 };
    expect(predictThroughput(simpleCtx('PPDD'), roles('PPDD'), w)).toBeCloseTo(10, 10);
    expect(() => predictThroughput(ctx, roles('PD'))).toThrow(RangeError);
  });
});

describe('stdlib splits', () => {
  function nodes(spec: string, loads: number[], states?: Ctx['nodes'][number]['state'][]): Ctx['nodes'] {
    const ctx = sampleCtx({ nodes: spec.length });
    return ctx.nodes.map((n, i) => ({ ...n, role: spec[i] as Role, queueLength: loads[i]!, running: 0, state: states?.[i] ?? 'active' }));
  }

  it('keeps the split it is asked for', () => {
    expect(splitToRoles(2, nodes('PPDD', [1, 2, 3, 4]))).toEqual(roles('PPDD'));
  });

  it('moves the least loaded nodes, as few as needed', () => {
    expect(splitToRoles(3, nodes('PPDDD', [0, 0, 9, 1, 5]))).toEqual(roles('PPDPD'));
    expect(splitToRoles(1, nodes('PPPD', [4, 2, 7, 0]))).toEqual(roles('DDPD'));
    expect(splitToRoles(2.4, nodes('PDDD', [0, 3, 2, 1]))).toEqual(roles('PDDP'));
  });

  it('leaves down nodes alone, follows targetRole, clamps nP', () => {
    const ns = nodes('PDDD', [0, 0, 0, 0], ['down', 'active', 'active', 'active']);
    expect(splitToRoles(1, ns)).toEqual(roles('PPDD'));
    expect(splitToRoles(99, ns)).toEqual(roles('PPPP'));
    expect(splitToRoles(-3, ns)).toEqual(roles('PDDD'));
    const switching = nodes('PPDD', [0, 0, 0, 0]);
    switching[1] = { ...switching[1]!, state: 'switching', targetRole: 'D' };
    expect(splitToRoles(1, switching)).toEqual(roles('PDDD'));
  });

  it('countRoles counts up nodes when given them', () => {
    const ns = nodes('PDDD', [0, 0, 0, 0], ['down', 'active', 'active', 'active']);
    expect(countRoles(roles('PDDD'))).toEqual({ P: 1, D: 3 });
    expect(countRoles(roles('PDDD'), ns)).toEqual({ P: 0, D: 3 });
  });

  it('exports exactly the documented names, frozen', () => {
    expect(Object.keys(stdlib).sort()).toEqual([...STDLIB_NAMES].sort());
    expect(Object.isFrozen(stdlib)).toBe(true);
  });
});
