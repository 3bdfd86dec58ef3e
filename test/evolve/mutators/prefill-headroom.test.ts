import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { checkPolicy } from '../../../src/evolve/mutators/index.js';
import { parsePolicy } from '../../../src/evolve/mutators/policy-shape.js';
import type { EditContext } from '../../../src/evolve/mutators/structural/edit.js';
import { headroomSites, prefillHeadroomEdit } from '../../../src/evolve/mutators/structural/prefill-headroom.js';
import { literalSites } from '../../../src/evolve/mutators/structural/perturb-literal.js';
import { sampleCtx, stdlib } from '../../../src/policy/index.js';
import { PolicySandbox } from '../../../src/sandbox/index.js';

function context(code: string): EditContext {
  return { code, program: parsePolicy(code), inspirations: [] };
}

function policy(body: string): string {
  return `function shouldReschedule(ctx) {\n  return true;\n}\n\n${body}\n`;
}

const greedy = readFileSync(join('seeds', 'greedy.js'), 'utf8');

describe('predictWithHeadroom', () => {
  it('is predictThroughput at 0 (and for a spareNodes that is not a positive number), min(prefill x (nP - h) / nP, decode) otherwise', () => {
    const ctx = sampleCtx({ seed: 3 });
    for (let p = 1; p < ctx.nodes.length; p++) {
      const roles = stdlib.splitToRoles(p, ctx.nodes);
      const c = stdlib.phaseCapacity(ctx, roles);
      const theta = stdlib.predictThroughput(ctx, roles);
      const nP = stdlib.countRoles(roles, ctx.nodes).P;
      expect(stdlib.predictWithHeadroom(ctx, roles, undefined, 0)).toBe(theta);
      expect(stdlib.predictWithHeadroom(ctx, roles, undefined, -1)).toBe(theta);
      expect(stdlib.predictWithHeadroom(ctx, roles, undefined, Number.NaN)).toBe(theta);
      expect(stdlib.predictWithHeadroom(ctx, roles, undefined, 0.5)).toBe(Math.min((c.prefill * (nP - 0.5)) / nP, c.decode));
      expect(stdlib.predictWithHeadroom(ctx, roles, undefined, nP + 1)).toBe(0);
    }
  });

  it('moves a balanced planner toward prefill: the best split with 0.5 spare nodes has at least as many prefill nodes as with none', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const ctx = sampleCtx({ seed });
      const best = (u: number) => {
        let bp = 1;
        let bt = -1;
        for (let p = 1; p < ctx.nodes.length; p++) {
          const t = stdlib.predictWithHeadroom(ctx, stdlib.splitToRoles(p, ctx.nodes), undefined, u);
          if (t > bt) [bp, bt] = [p, t];
        }
        return bp;
      };
      expect(best(0.5)).toBeGreaterThanOrEqual(best(0));
    }
  });
});

describe('prefill-headroom edit', () => {
  it('turns every predictThroughput call of greedy into predictWithHeadroom reading one new constant, 0.5, a literal the tune mutator can move', () => {
    const sites = headroomSites(context(greedy));
    expect(sites.map((s) => [s.to, s.line, s.text])).toEqual([
      ['predictWithHeadroom', 63, 'predictWithHeadroom(ctx, splitToRoles(cur, ctx.nodes), w, PREFILL_SPARE_NODES)'],
      ['predictWithHeadroom', 65, 'predictWithHeadroom(ctx, splitToRoles(p, ctx.nodes), w, PREFILL_SPARE_NODES)'],
    ]);
    const edit = prefillHeadroomEdit.apply(context(greedy), new Rng(1))!;
    expect(checkPolicy(edit.code).ok).toBe(true);
    expect(edit.code).toBe(
      greedy
        .replace('function upCount(ctx) {', 'const PREFILL_SPARE_NODES = 0.5;\n\nfunction upCount(ctx) {')
        .replaceAll(/predictThroughput\((ctx, splitToRoles\((?:cur|p), ctx\.nodes\), w)\)/g, 'predictWithHeadroom($1, PREFILL_SPARE_NODES)'),
    );
    expect(edit.description).toBe('prefill headroom on (PREFILL_SPARE_NODES): 2 calls -> predictWithHeadroom (line 63, 65)');
    const literals = literalSites({ program: parsePolicy(edit.code) }).map((s) => s.literal.raw);
    expect(literals.filter((r) => r === '0.5')).toHaveLength(1);
    // Back: the calls and the constant go, which gives the seed again.
    expect(prefillHeadroomEdit.apply(context(edit.code), new Rng(1))!.code).toBe(greedy);
  });

  it('runs in the sandbox: the edited greedy plans, and at 0 spare nodes it plans what greedy plans', () => {
    const edited = prefillHeadroomEdit.apply(context(greedy), new Rng(1))!.code;
    const ctx = sampleCtx({ seed: 2 });
    const plan = (code: string) => {
      const sandbox = PolicySandbox.create(code, { name: 'headroom' });
      try {
        const r = sandbox.schedule(ctx);
        if (!r.ok) throw new Error(r.failure.message);
        return r.plan.roles.join('');
      } finally {
        sandbox.dispose();
      }
    };
    expect(plan(edited)).toMatch(/^[PD]+$/);
    expect(plan(edited.replace('const PREFILL_SPARE_NODES = 0.5;', 'const PREFILL_SPARE_NODES = 0;'))).toBe(plan(greedy));
  });

  it('fills in undefined for a call without a workload, and a round trip gives the parent', () => {
    const code = policy('function schedule(c) {\n  const t = predictThroughput(c, c.plan.roles);\n  return { roles: t > 0 ? splitToRoles(2, c.nodes) : c.plan.roles };\n}');
    const on = prefillHeadroomEdit.apply(context(code), new Rng(1))!;
    expect(on.code).toContain('predictWithHeadroom(c, c.plan.roles, undefined, PREFILL_SPARE_NODES)');
    const back = prefillHeadroomEdit.apply(context(on.code), new Rng(1))!;
    expect(back.code).toBe(code);
    expect(back.description).toMatch(/^prefill headroom off: /);
  });

  it('keeps a constant that something else still reads, and reuses a declared one', () => {
    const code = policy('const PREFILL_SPARE_NODES = 0.7;\nfunction schedule(c) {\n  const h = PREFILL_SPARE_NODES;\n  return { roles: predictWithHeadroom(c, c.plan.roles, undefined, PREFILL_SPARE_NODES) > h ? c.plan.roles : c.plan.roles };\n}');
    const off = prefillHeadroomEdit.apply(context(code), new Rng(1))!;
    expect(off.code).toContain('const PREFILL_SPARE_NODES = 0.7;');
    expect(off.code).toContain('predictThroughput(c, c.plan.roles)');
    const on = prefillHeadroomEdit.apply(context(off.code), new Rng(1))!;
    expect(on.code).toBe(code);
  });

  it('with calls of both kinds, draws a direction and switches every call of it', () => {
    const code = policy('function schedule(c) {\n  const a = predictThroughput(c, c.plan.roles);\n  const b = predictWithHeadroom(c, c.plan.roles, meanWorkload(c), 0.7);\n  return { roles: a > b ? c.plan.roles : splitToRoles(2, c.nodes) };\n}');
    const seen = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const edit = prefillHeadroomEdit.apply(context(code), new Rng(seed))!;
      expect(checkPolicy(edit.code).ok).toBe(true);
      const on = edit.code.match(/predictWithHeadroom\(/g)?.length ?? 0;
      const off = edit.code.match(/predictThroughput\(/g)?.length ?? 0;
      expect([on, off].sort()).toEqual([0, 2]);
      seen.add(edit.description.split(':')[0]!);
    }
    expect(seen.size).toBe(2);
  });

  it('has no site in a policy that declares its own function of the target name', () => {
    const code = policy('function predictWithHeadroom(a, b, c, d) { return 0; }\nfunction schedule(c) {\n  return { roles: predictThroughput(c, c.plan.roles) > 0 ? c.plan.roles : c.plan.roles };\n}');
    expect(headroomSites(context(code))).toEqual([]);
    expect(prefillHeadroomEdit.apply(context(code), new Rng(1))).toBeNull();
  });
});
