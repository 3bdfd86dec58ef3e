import { describe, expect, it } from 'vitest';
import { sampleCtx, SAMPLE_GB300_MODEL, stdlib, type Ctx } from '../../src/policy/index.js';
import { PolicySandbox } from '../../src/sandbox/index.js';

/**
 * The stdlib must give bit-identical results on the host and in the sandbox.
 * One probe, written once as JS text, calls every stdlib function on a ctx
 * and writes the results as JSON (non-finite numbers as strings, so nothing
 * is lost); the host runs it against `stdlib`, the sandbox against its
 * globals, and the texts must be equal character for character.
 */
const PROBE = String.raw`function probe(ctx, lib) {
  const out = { workload: lib.meanWorkload(ctx), slices: [], splits: [], perSlice: [] };
  for (let i = 0; i < ctx.window.slices.length; i++) out.slices.push(lib.sliceWorkload(ctx, i));
  for (let p = 0; p <= ctx.nodes.length; p++) {
    const roles = lib.splitToRoles(p, ctx.nodes);
    out.splits.push({ roles, cap: lib.phaseCapacity(ctx, roles), theta: lib.predictThroughput(ctx, roles), count: lib.countRoles(roles, ctx.nodes) });
    out.splits.push({ headroom: [lib.predictWithHeadroom(ctx, roles, undefined, 0.5), lib.predictWithHeadroom(ctx, roles, lib.sliceWorkload(ctx, 0), 1.3), lib.predictWithHeadroom(ctx, roles, undefined, -1)] });
    out.splits.push({ byKind: lib.splitByKind(p, ctx.nodes, ctx), byKindLatest: lib.splitByKind(p, ctx.nodes, ctx, lib.sliceWorkload(ctx, ctx.window.slices.length - 1)) });
  }
  for (let i = 0; i < ctx.window.slices.length; i++) {
    out.perSlice.push(lib.predictThroughput(ctx, ctx.plan.roles, lib.sliceWorkload(ctx, i)));
  }
  const e2e = ctx.window.slices.map(function (s) { return s.e2eP95; });
  out.stats = [lib.mean(e2e), lib.stdError(e2e), lib.percentile(e2e, 50), lib.percentile(e2e, 95), lib.percentile(e2e, 99.9), lib.mean([]), lib.stdError([1])];
  return JSON.stringify(out, function (k, v) { return typeof v === 'number' && !isFinite(v) ? String(v) : v; });
}`;

const hostProbe = new Function(`${PROBE}; return probe;`)() as (ctx: Ctx, lib: unknown) => string;

/** Mixed hardware, a down node, a kind without a model, slices without samples. */
function heterogeneousCtx(seed: number): Ctx {
  const ctx = sampleCtx({ nodes: 12, slices: 10, seed, prefillNodes: 5 });
  const kinds = ['gb300', 'gb200', 'h200', 'b100'];
  ctx.nodes.forEach((n, i) => (n.kind = kinds[i % kinds.length]!));
  ctx.nodes[3]!.state = 'down';
  ctx.nodes[6]!.state = 'switching';
  ctx.nodes[6]!.targetRole = 'P';
  ctx.model.byKind.gb200 = {
    ...SAMPLE_GB300_MODEL,
    prefill: { c0: 0.021, c1: 3.1e-5, c2: 1.7e-10, c3: 2e-6 },
    decode: { d0: 0.013, d1: 0.015, d2: 1.3e-4 },
    maxDecodeBatch: 96,
  };
  ctx.model.byKind.h200 = { ...SAMPLE_GB300_MODEL, kFraction: 8 / 160, tFwd: 1, tAcc: 1, maxDecodeBatch: 64 };
  const s = ctx.window.slices[2]!;
  Object.assign(s, { completions: 0, meanOutputTokens: null, meanAcceptedPerIter: null, e2eP95: null });
  Object.assign(ctx.window.slices[5]!, { arrivals: 0, meanUncachedTokens: null, meanCachedTokens: null });
  return ctx;
}

const ctxs: [string, Ctx][] = [
  ...[1, 2, 3].map((seed): [string, Ctx] => [`sample seed ${seed}`, sampleCtx({ seed, now: 1000 * seed })]),
  ...[4, 5].map((seed): [string, Ctx] => [`heterogeneous seed ${seed}`, heterogeneousCtx(seed)]),
];

describe('stdlib parity between host and sandbox', () => {
  for (const [label, ctx] of ctxs) {
    it(`gives identical results for ${label}`, () => {
      const host = hostProbe(ctx, stdlib);
      // The host's answer goes in as a literal; the sandbox says where its own first differs.
      const sandbox = PolicySandbox.create(
        `${PROBE}
         const expected = ${JSON.stringify(host)};
         function shouldReschedule(ctx) {
           const got = probe(ctx, globalThis);
           if (got === expected) return true;
           let i = 0;
           while (got[i] === expected[i]) i++;
           throw new Error('differs at ' + i + ': ' + got.slice(i - 40, i + 40) + ' vs ' + expected.slice(i - 40, i + 40));
         }
         function schedule(ctx) { return { roles: ctx.plan.roles }; }`,
        { name: 'parity' },
      );
      try {
        const r = sandbox.shouldReschedule(ctx);
        expect(r.ok ? r.value : r.failure.message).toBe(true);
      } finally {
        sandbox.dispose();
      }
      // And the probe measured something real.
      const parsed = JSON.parse(host) as { splits: { theta?: number }[]; stats: unknown[] };
      expect(Math.max(...parsed.splits.map((x) => x.theta ?? 0))).toBeGreaterThan(0);
      expect(parsed.stats.slice(-2)).toEqual(['NaN', 'Infinity']);
    });
  }
});

/** One schedule call in the sandbox that makes every split with `call`: its plan's roles and its counted ops. */
function opsOf(ctx: Ctx, call: string): { roles: string; ops: number } {
  const sandbox = PolicySandbox.create(
    `function shouldReschedule(ctx) { return true; }
     function schedule(ctx) {
       let roles = ctx.plan.roles;
       for (let p = 0; p <= ctx.nodes.length; p++) roles = ${call};
       return { roles: ${call.replace(/\bp\b/g, 'Math.min(ctx.nodes.length - 1, Math.max(1, ctx.nodes.length >> 1))')} };
     }`,
    { name: 'ops' },
  );
  try {
    const r = sandbox.schedule(ctx);
    if (!r.ok) throw new Error(r.failure.message);
    return { roles: r.plan.roles.join(''), ops: r.ops };
  } finally {
    sandbox.dispose();
  }
}

describe('splitByKind costs what splitToRoles costs on one kind', () => {
  // Same roles and same counted ops: a policy switched to splitByKind on a
  // homogeneous cluster is charged the same scheduling time, so its run is unchanged.
  for (const seed of [1, 2, 3]) {
    it(`counts the same ops, sample seed ${seed}`, () => {
      const ctx = sampleCtx({ seed, now: 1000 * seed });
      ctx.nodes[2]!.state = 'down';
      ctx.nodes[4] = { ...ctx.nodes[4]!, state: 'switching', targetRole: ctx.nodes[4]!.role === 'P' ? 'D' : 'P' };
      const plain = opsOf(ctx, 'splitToRoles(p, ctx.nodes)');
      const byKind = opsOf(ctx, 'splitByKind(p, ctx.nodes, ctx)');
      expect(byKind).toEqual(plain);
      expect(plain.ops).toBeGreaterThan(50);
    });
  }

  it('counts more on mixed hardware, where it ranks the kinds', () => {
    const ctx = heterogeneousCtx(4);
    expect(opsOf(ctx, 'splitByKind(p, ctx.nodes, ctx)').ops).toBeGreaterThan(opsOf(ctx, 'splitToRoles(p, ctx.nodes)').ops);
  });
});
