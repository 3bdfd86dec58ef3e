import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/common/rng.js';
import { sampleCtx, SAMPLE_GB300_MODEL, stdlib, type Ctx, type CtxNode, type KindModel, type Role, type Workload } from '../../src/policy/index.js';

const { splitToRoles, splitByKind, meanWorkload } = stdlib;
const str = (roles: readonly Role[]): string => roles.join('');

/** An H200-like model: the sample GB300 model with prefill 0.3x and decode 0.55x as fast, batch 64 (as the profiles scale it). */
function scaled(prefill: number, decode: number, maxDecodeBatch: number): KindModel {
  const m = SAMPLE_GB300_MODEL;
  return {
    ...m,
    prefill: { c0: m.prefill.c0 / prefill, c1: m.prefill.c1 / prefill, c2: m.prefill.c2 / prefill, c3: m.prefill.c3 / prefill },
    decode: { d0: m.decode.d0 / decode, d1: m.decode.d1 / decode, d2: m.decode.d2 / decode },
    maxDecodeBatch,
  };
}
const H200 = scaled(0.3, 0.55, 64);

/** A ctx with one node per entry of `spec` ('P'/'D'), of the given kinds and loads (queueLength; running 0). */
function cluster(spec: string, kinds: string[], loads: number[], seed = 1): Ctx {
  const ctx = sampleCtx({ nodes: spec.length, seed });
  ctx.nodes = ctx.nodes.map((n, i) => ({ ...n, role: spec[i] as Role, kind: kinds[i]!, queueLength: loads[i]!, running: 0, state: 'active' }));
  ctx.plan.roles = spec.split('') as Role[];
  ctx.model.byKind = { gb300: SAMPLE_GB300_MODEL, h200: H200 };
  return ctx;
}

const HETERO = ['gb300', 'gb300', 'gb300', 'gb300', 'gb300', 'h200', 'h200', 'h200', 'h200'];

/** Random nodes: roles, loads, states (switching ones with a targetRole), of kinds drawn from `kinds`. */
function randomNodes(rng: Rng, n: number, kinds: readonly string[]): CtxNode[] {
  const base = sampleCtx({ nodes: n, seed: rng.int(1, 1000) }).nodes;
  const states: CtxNode['state'][] = ['active', 'active', 'active', 'switching', 'down', 'restarting'];
  return base.map((node) => {
    const state = rng.pick(states);
    const role: Role = rng.next() < 0.5 ? 'P' : 'D';
    const out: CtxNode = { ...node, kind: rng.pick(kinds), role, state, queueLength: rng.int(0, 6), running: rng.int(0, 3) };
    if (state === 'switching') out.targetRole = role === 'P' ? 'D' : 'P';
    else delete out.targetRole;
    return out;
  });
}

describe('splitByKind on a cluster of one kind', () => {
  it('gives splitToRoles exactly, on hand-made cases', () => {
    const ctx = cluster('PPDDD', ['gb300', 'gb300', 'gb300', 'gb300', 'gb300'], [0, 0, 9, 1, 5]);
    for (const nP of [-1, 0, 1, 2, 2.4, 3, 4, 5, 99]) expect(splitByKind(nP, ctx.nodes, ctx)).toEqual(splitToRoles(nP, ctx.nodes));
    expect(str(splitByKind(3, ctx.nodes, ctx))).toBe('PPDPD');
  });

  it('gives splitToRoles exactly on random clusters, with and without a workload', () => {
    const rng = new Rng(2024);
    let compared = 0;
    for (let trial = 0; trial < 300; trial++) {
      const ctx = sampleCtx({ nodes: rng.int(1, 12), seed: trial + 1 });
      ctx.nodes = randomNodes(rng, ctx.nodes.length, [rng.pick(['gb300', 'h200', 'no-model'])]);
      ctx.model.byKind = { gb300: SAMPLE_GB300_MODEL, h200: H200 };
      const nP = rng.uniform(-1, ctx.nodes.length + 1);
      const expected = splitToRoles(nP, ctx.nodes);
      expect(splitByKind(nP, ctx.nodes, ctx)).toEqual(expected);
      expect(splitByKind(nP, ctx.nodes, ctx, null)).toEqual(expected);
      expect(splitByKind(nP, ctx.nodes, ctx, meanWorkload(ctx))).toEqual(expected);
      compared++;
    }
    expect(compared).toBe(300);
  });

  it('gives splitToRoles on mixed kinds that tie (same model) or with no workload to rank by', () => {
    const rng = new Rng(7);
    for (let trial = 0; trial < 200; trial++) {
      const ctx = sampleCtx({ nodes: rng.int(2, 12), seed: trial + 1 });
      ctx.nodes = randomNodes(rng, ctx.nodes.length, ['gb300', 'gb200', 'h200']);
      const nP = rng.int(0, ctx.nodes.length);
      ctx.model.byKind = { gb300: SAMPLE_GB300_MODEL, gb200: SAMPLE_GB300_MODEL, h200: SAMPLE_GB300_MODEL };
      expect(splitByKind(nP, ctx.nodes, ctx)).toEqual(splitToRoles(nP, ctx.nodes));
      ctx.model.byKind.h200 = H200;
      expect(splitByKind(nP, ctx.nodes, ctx, null)).toEqual(splitToRoles(nP, ctx.nodes));
    }
  });
});

describe('splitByKind on mixed hardware', () => {
  // The hetero scenario's cluster: 5 GB300 (ids 0-4) and 4 H200 (5-8); the H200s read least loaded.
  const ctx = cluster('PPPPDDDDD', HETERO, [5, 5, 7, 6, 28, 2, 3, 4, 1]);

  it('fills prefill from GB300 first, then H200, moving the least loaded within a kind', () => {
    const got = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((p) => str(splitByKind(p, ctx.nodes, ctx)));
    expect(got).toEqual(['DDDDDDDDD', 'DDPDDDDDD', 'DDPPDDDDD', 'DPPPDDDDD', 'PPPPDDDDD', 'PPPPPDDDD', 'PPPPPDDDP', 'PPPPPPDDP', 'PPPPPPPDP', 'PPPPPPPPP']);
    // splitToRoles moves the least loaded H200 instead of the fifth GB300.
    expect(str(splitToRoles(5, ctx.nodes))).toBe('PPPPDDDDP');
  });

  it('swaps kinds at the same count: H200 prefill nodes go back to decode when a GB300 can take their place', () => {
    const mixed = cluster('PPPDDPPDD', HETERO, [1, 1, 1, 9, 2, 3, 4, 0, 0]);
    expect(str(splitByKind(5, mixed.nodes, mixed))).toBe('PPPPPDDDD');
    expect(str(splitByKind(6, mixed.nodes, mixed))).toBe('PPPPPDPDD');
    expect(str(splitToRoles(5, mixed.nodes))).toBe('PPPDDPPDD');
  });

  it('leaves down nodes alone and keeps the restarting-first, switching-last rules within a kind', () => {
    const c = cluster('DDDDDPDDD', HETERO, [0, 9, 9, 9, 9, 0, 0, 0, 0]);
    c.nodes[0]!.state = 'down';
    c.nodes[1]!.state = 'restarting';
    c.nodes[2] = { ...c.nodes[2]!, state: 'switching', role: 'P', targetRole: 'D' };
    c.nodes[3]!.queueLength = 1;
    // Up GB300s: 1 (restarting), 2 (switching to D), 3 (load 1), 4 (load 9). Two prefill places go to GB300:
    // the restarting one first, then the least loaded; the switching node keeps heading to D.
    expect(str(splitByKind(2, c.nodes, c))).toBe('DPDPDDDDD');
    // Four places: all four up GB300s, the switching one last, and none to H200 (node 5 goes back to decode).
    expect(str(splitByKind(4, c.nodes, c))).toBe('DPPPPDDDD');
    // Down node 0 keeps its role whatever the count.
    expect(splitByKind(99, c.nodes, c)[0]).toBe('D');
  });

  it('puts a kind with no model last, after every modelled kind', () => {
    const c = cluster('DDDDDD', ['b100', 'gb300', 'b100', 'h200', 'gb300', 'h200'], [0, 5, 0, 0, 5, 0]);
    const got = [1, 2, 3, 4, 5].map((p) => str(splitByKind(p, c.nodes, c)));
    expect(got).toEqual(['DPDDDD', 'DPDDPD', 'DPDPPD', 'DPDPPP', 'PPDPPP']);
  });

  it('ranks by the workload it is given', () => {
    // Kind a: slow to start a prefill, fast per token; kind b the reverse; decode the same.
    const a: KindModel = { ...SAMPLE_GB300_MODEL, prefill: { c0: 0.5, c1: 1e-6, c2: 0, c3: 0 } };
    const b: KindModel = { ...SAMPLE_GB300_MODEL, prefill: { c0: 0.01, c1: 1e-4, c2: 0, c3: 0 } };
    const c = cluster('DDDD', ['a', 'a', 'b', 'b'], [0, 0, 0, 0]);
    c.model.byKind = { a, b };
    const w: Workload = { uncached: 100, cached: 0, output: 200, accepted: 1, restored: 0, decodeQueue: 10, prefillQueue: 0 };
    expect(str(splitByKind(2, c.nodes, c, w))).toBe('DDPP');
    expect(str(splitByKind(2, c.nodes, c, { ...w, uncached: 100_000 }))).toBe('PPDD');
  });

  it('on random mixed clusters: the count asked, every better kind full before a worse one gets a place, inputs untouched', () => {
    const rng = new Rng(99);
    for (let trial = 0; trial < 300; trial++) {
      const c = sampleCtx({ nodes: rng.int(2, 12), seed: trial + 1 });
      c.nodes = randomNodes(rng, c.nodes.length, ['gb300', 'h200', 'b100']);
      c.model.byKind = { gb300: SAMPLE_GB300_MODEL, h200: H200 };
      const before = JSON.stringify(c.nodes);
      const nP = rng.int(-1, c.nodes.length + 1);
      const roles = splitByKind(nP, c.nodes, c);
      expect(JSON.stringify(c.nodes)).toBe(before);
      expect(splitByKind(nP, c.nodes, c)).toEqual(roles);
      const up = c.nodes.map((n, i) => i).filter((i) => c.nodes[i]!.state !== 'down');
      expect(up.filter((i) => roles[i] === 'P').length).toBe(Math.max(0, Math.min(up.length, nP)));
      c.nodes.forEach((n, i) => n.state === 'down' && expect(roles[i]).toBe(n.targetRole ?? n.role));
      const rank = (kind: string): number => ['gb300', 'h200', 'b100'].indexOf(kind);
      for (const i of up) {
        for (const j of up) if (roles[i] === 'P' && rank(c.nodes[j]!.kind) < rank(c.nodes[i]!.kind)) expect(roles[j], `trial ${trial}`).toBe('P');
      }
    }
  });

  it('needs ctx as its third argument', () => {
    expect(() => splitByKind(2, ctx.nodes, undefined as unknown as Ctx)).toThrow(TypeError);
    expect(() => splitByKind(2, ctx.nodes, { model: null } as unknown as Ctx)).toThrow(TypeError);
  });
});
