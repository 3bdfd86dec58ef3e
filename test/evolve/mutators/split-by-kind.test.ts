import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setsKnobs } from '../../../bench/evolve-suite-report.js';
import { Rng } from '../../../src/common/rng.js';
import { checkPolicy, createStructuralMutator } from '../../../src/evolve/mutators/index.js';
import { parsePolicy } from '../../../src/evolve/mutators/policy-shape.js';
import type { EditContext } from '../../../src/evolve/mutators/structural/edit.js';
import { splitByKindEdit, splitSites } from '../../../src/evolve/mutators/structural/split-by-kind.js';
import { sampleCtx } from '../../../src/policy/index.js';
import { PolicySandbox } from '../../../src/sandbox/index.js';
import { BARE, input, TINY } from './fixtures.js';

function context(code: string): EditContext {
  return { code, program: parsePolicy(code), inspirations: [] };
}

function policy(body: string): string {
  return `function shouldReschedule(ctx) {\n  return true;\n}\n\n${body}\n`;
}

const greedy = readFileSync(join('seeds', 'greedy.js'), 'utf8');

describe('split-by-kind edit', () => {
  it("turns every splitToRoles call into splitByKind with the enclosing function's ctx, in one edit", () => {
    const sites = splitSites(context(greedy));
    expect(sites.map((s) => [s.to, s.line, s.text])).toEqual([
      ['splitByKind', 63, 'splitByKind(cur, ctx.nodes, ctx)'],
      ['splitByKind', 65, 'splitByKind(p, ctx.nodes, ctx)'],
      ['splitByKind', 72, 'splitByKind(bestP, ctx.nodes, ctx)'],
    ]);
    const edit = splitByKindEdit.apply(context(greedy), new Rng(1))!;
    expect(checkPolicy(edit.code).ok).toBe(true);
    expect(edit.code).toBe(
      greedy
        .replace('splitToRoles(cur, ctx.nodes)', 'splitByKind(cur, ctx.nodes, ctx)')
        .replace('splitToRoles(p, ctx.nodes)', 'splitByKind(p, ctx.nodes, ctx)')
        .replace('splitToRoles(bestP, ctx.nodes)', 'splitByKind(bestP, ctx.nodes, ctx)'),
    );
    expect(edit.description).toBe('split by kind: 3 calls -> splitByKind (line 63, 65, 72)');
  });

  it('with calls of both kinds, draws a direction and switches every call of it', () => {
    const code = policy('function schedule(c) {\n  const a = splitByKind(2, c.nodes, c);\n  return { roles: splitToRoles(countRoles(a).P, c.nodes) };\n}');
    const seen = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const edit = splitByKindEdit.apply(context(code), new Rng(seed))!;
      expect(checkPolicy(edit.code).ok).toBe(true);
      const byKind = edit.code.match(/splitByKind\(/g)?.length ?? 0;
      const byLoad = edit.code.match(/splitToRoles\(/g)?.length ?? 0;
      expect([byKind, byLoad].sort()).toEqual([0, 2]);
      seen.add(edit.description);
    }
    expect(seen.size).toBe(2);
  });

  it('reverses: splitByKind with or without a workload goes back to splitToRoles, and a round trip gives the parent', () => {
    const code = policy('function schedule(c) {\n  const w = meanWorkload(c);\n  return { roles: splitByKind(2, c.nodes, c, w) };\n}');
    const back = splitByKindEdit.apply(context(code), new Rng(1))!;
    expect(back.code).toBe(code.replace('splitByKind(2, c.nodes, c, w)', 'splitToRoles(2, c.nodes)'));
    expect(back.description).toBe('split by load: `splitByKind(2, c.nodes, c, w)` -> splitToRoles in schedule (line 7)');
    const there = splitByKindEdit.apply(context(back.code), new Rng(1))!;
    expect(there.code).toBe(code.replace('splitByKind(2, c.nodes, c, w)', 'splitByKind(2, c.nodes, c)'));
    expect(splitByKindEdit.apply(context(there.code), new Rng(1))!.code).toBe(back.code);
  });

  it('skips calls with no ctx to pass: top level, a destructured or rebound first parameter, another object nodes come from', () => {
    const none = policy(
      [
        'var START = splitToRoles(1, []);',
        'function a({ nodes }) { return splitToRoles(1, nodes); }',
        'function b(ctx) { return [1].map(function (ctx) { return splitToRoles(1, ctx.nodes); }); }',
        'function c(ctx) { return [1].map(([ctx]) => splitToRoles(1, ctx.nodes)); }',
        'function d(p, ctx) { return splitToRoles(p, ctx.nodes); }',
        'function e(ctx) { return splitToRoles(1, ctx.nodes, 3) || splitToRoles(...[1, ctx.nodes]) || splitByKind(1, ctx.nodes); }',
        'function schedule(ctx) { return { roles: ctx.plan.roles }; }',
      ].join('\n'),
    );
    expect(splitSites(context(none))).toEqual([]);
    expect(splitByKindEdit.apply(context(none), new Rng(1))).toBeNull();
    expect(splitByKindEdit.apply(context(BARE), new Rng(1))).toBeNull();
    // A nested function that does not rebind the name passes the outer ctx on.
    const nested = policy('function schedule(ctx) { return { roles: [1].map(function (q) { return splitToRoles(q, ctx.nodes); })[0] }; }');
    expect(splitSites(context(nested)).map((s) => s.text)).toEqual(['splitByKind(q, ctx.nodes, ctx)']);
  });

  it("gives no site for a policy's own function of the target name", () => {
    const ownByKind = policy('function splitByKind(a, b) { return b.map(() => "P"); }\nfunction schedule(ctx) { return { roles: splitToRoles(1, ctx.nodes) }; }');
    expect(splitSites(context(ownByKind))).toEqual([]);
    const ownToRoles = policy('function splitToRoles(a, b) { return b.map(() => "P"); }\nfunction schedule(ctx) { return { roles: splitByKind(1, ctx.nodes, ctx) }; }');
    expect(splitSites(context(ownToRoles))).toEqual([]);
  });

  it('the edited seed runs in the sandbox and sets no knob (roles-only)', () => {
    const seeds = readdirSync('seeds').filter((f) => f.endsWith('.js'));
    const ctx = sampleCtx({ nodes: 9, prefillNodes: 4, seed: 5 });
    ctx.nodes.forEach((n, i) => (n.kind = i < 5 ? 'gb300' : 'h200'));
    ctx.model.byKind.h200 = { ...ctx.model.byKind.gb300!, maxDecodeBatch: 64 };
    for (const file of seeds) {
      const code = readFileSync(join('seeds', file), 'utf8');
      const sites = splitSites(context(code));
      expect(sites.length, file).toBeGreaterThan(0);
      let edited = code;
      for (const site of [...sites].reverse()) edited = edited.slice(0, site.start) + site.text + edited.slice(site.end);
      expect(setsKnobs(edited), file).toBe(setsKnobs(code));
      const sandbox = PolicySandbox.create(edited, { name: file });
      try {
        const r = sandbox.schedule(ctx);
        expect(r.ok ? r.plan.roles.length : r.failure.message, file).toBe(9);
      } finally {
        sandbox.dispose();
      }
    }
  });

  it('is drawn by the structural mutator only where it has a site', async () => {
    const mutator = createStructuralMutator({ maxEdits: 1 });
    const noSite = TINY.replace('splitToRoles(nP, ctx.nodes)', 'ctx.plan.roles');
    let drawn = 0;
    for (let seed = 0; seed < 60; seed++) {
      expect((await mutator.mutate(input(noSite, seed))).editSummary).not.toMatch(/^split by/);
      if ((await mutator.mutate(input(TINY, seed))).editSummary.startsWith('split by kind')) drawn++;
    }
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThan(20);
  });
});
