import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkPolicy,
  createKnobMutator,
  DEFAULT_OFFLINE_MIX,
  MutationFailed,
  parseMutatorSpec,
  ROLES_ONLY_OFFLINE_MIX,
} from '../../../src/evolve/mutators/index.js';
import { INSERTABLE_KNOBS } from '../../../src/evolve/mutators/structural/insert-knob.js';
import { sampleCtx, type Plan } from '../../../src/policy/index.js';
import { PolicySandbox } from '../../../src/sandbox/index.js';
import { setsKnobs } from '../../../bench/evolve-suite-report.js';
import { BARE, input, TINY } from './fixtures.js';

const seeds = readdirSync('seeds')
  .filter((f) => f.endsWith('.js'))
  .sort()
  .map((f) => ({ name: f.replace(/\.js$/, ''), code: readFileSync(join('seeds', f), 'utf8') }));

const SUMMARY = /^insert knob (routing|eviction|transitions|batching)\.(\w+) = ('[a-z-]+'|\d+) in schedule's plan \(line (\d+(, \d+)*)\)$/;

const open: PolicySandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.dispose();
});

/** The plan the candidate returns on a sample ctx, through the sandbox (which validates it as the simulator will). */
function planOf(code: string): Plan {
  const sandbox = PolicySandbox.create(code, { seed: 1, name: 'knob-test' });
  open.push(sandbox);
  const ctx = sampleCtx({ seed: 3, now: 3600 });
  sandbox.shouldReschedule(ctx);
  const result = sandbox.schedule(ctx);
  if (!result.ok) throw new Error(`schedule failed: ${result.failure.message}`);
  return result.plan as Plan;
}

function knobOf(plan: Plan, group: string, key: string): unknown {
  return (plan as unknown as Record<string, Record<string, unknown> | undefined>)[group]?.[key];
}

describe('knob mutator', () => {
  const mutator = createKnobMutator();

  it('is deterministic for a seed and draws different knobs across seeds', async () => {
    const a = await mutator.mutate(input(TINY, 7));
    const b = await mutator.mutate(input(TINY, 7));
    expect(b).toEqual(a);
    const drawn = new Set<string>();
    for (let seed = 0; seed < 60; seed++) drawn.add((await mutator.mutate(input(TINY, seed))).editSummary);
    // Every field can be drawn, and values within a field.
    for (const k of INSERTABLE_KNOBS) expect([...drawn].some((d) => d.includes(`${k.group}.${k.key} = `)), `${k.group}.${k.key}`).toBe(true);
    expect(drawn.size).toBeGreaterThan(INSERTABLE_KNOBS.length);
  });

  it('inserts the field into the returned plan, visibly in the edit line, and nothing else', async () => {
    const out = await mutator.mutate(input(TINY, 7));
    expect(out.mutator).toBe('knob');
    const m = SUMMARY.exec(out.editSummary);
    expect(m, out.editSummary).not.toBeNull();
    const [, group, key, literal, line] = m!;
    expect(Number(line)).toBe(TINY.split('\n').findIndex((l) => l.includes('return { roles:')) + 1);
    expect(out.code).toBe(TINY.replace('return { roles: splitToRoles(nP, ctx.nodes) }', `return { roles: splitToRoles(nP, ctx.nodes), ${group}: { ${key}: ${literal} } }`));
  });

  it('on every seed: the candidate parses, sets the knob on the plan it returns, and the plan validates', async () => {
    for (const seed of seeds) {
      for (let s = 0; s < 6; s++) {
        const out = await mutator.mutate({ ...input(seed.code, s), parent: { id: 1, code: seed.code, fitness: 100 } });
        expect(checkPolicy(out.code).ok, `${seed.name} #${s}`).toBe(true);
        const m = SUMMARY.exec(out.editSummary);
        expect(m, `${seed.name}: ${out.editSummary}`).not.toBeNull();
        const [, group, key, literal] = m!;
        expect(setsKnobs(out.code)).toBe(true);
        const value = literal!.startsWith("'") ? literal!.slice(1, -1) : Number(literal);
        expect(knobOf(planOf(out.code), group!, key!), `${seed.name}: ${out.editSummary}`).toBe(value);
      }
    }
  });

  it('adds to a knob group the plan already has, and skips fields it sets', async () => {
    const code = TINY.replace('return { roles: splitToRoles(nP, ctx.nodes) }', "return { roles: splitToRoles(nP, ctx.nodes), routing: { prefill: 'session' } }");
    for (let seed = 0; seed < 40; seed++) {
      const out = await mutator.mutate(input(code, seed));
      expect(out.editSummary).not.toMatch(/routing\.prefill/);
      if (out.editSummary.includes('routing.decode')) expect(out.code).toMatch(/routing: \{ prefill: 'session', decode: '(least-loaded|round-robin)' \}/);
      expect(out.code.match(/routing:/g)).toHaveLength(1);
    }
  });

  it('inserts into every plan schedule returns, not into a helper or nested function', async () => {
    const code = `function helper(ctx) {\n  return { roles: ctx.plan.roles };\n}\n\nfunction shouldReschedule(ctx) {\n  return true;\n}\n\nfunction schedule(ctx) {\n  const f = function () { return { roles: ctx.plan.roles }; };\n  if (ctx.now < 60) return { roles: helper(ctx).roles };\n  return { roles: f().roles };\n}\n`;
    const out = await mutator.mutate(input(code, 2));
    expect(out.editSummary).toMatch(/\(line 11, 12\)$/);
    const lines = out.code.split('\n');
    expect(lines[1]).toBe('  return { roles: ctx.plan.roles };');
    expect(lines[9]).toBe('  const f = function () { return { roles: ctx.plan.roles }; };');
    expect(lines[10]).toMatch(/^ {2}if \(ctx\.now < 60\) return \{ roles: helper\(ctx\)\.roles, \w+: \{ \w+: \S+ \} \};$/);
    expect(lines[11]).toMatch(/^ {2}return \{ roles: f\(\)\.roles, \w+: \{ \w+: \S+ \} \};$/);
  });

  it('fails with no-edit when there is no plan literal or every field is set', async () => {
    const none = await mutator.mutate(input(BARE, 1)).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(MutationFailed);
    expect((none as MutationFailed).reason).toBe('no-edit');
    const all =
      "return { roles: splitToRoles(nP, ctx.nodes), routing: { prefill: 'session', decode: 'round-robin' }, eviction: { order: 'lru', protectWaiting: 'host' }, transitions: { maxConcurrent: 1 }, batching: { maxPrefillTokens: 4096 } }";
    const full = await mutator.mutate(input(TINY.replace('return { roles: splitToRoles(nP, ctx.nodes) }', all), 1)).catch((e: unknown) => e);
    expect((full as MutationFailed).reason).toBe('no-edit');
  });
});

describe('the offline mixes', () => {
  it('the default draws knob insertion (knob-search); the roles-only mix does not, and gives its share to structural', () => {
    const def = parseMutatorSpec(DEFAULT_OFFLINE_MIX);
    const roles = parseMutatorSpec(ROLES_ONLY_OFFLINE_MIX);
    expect(def.find((p) => p.name === 'knob-search')!.weight).toBeGreaterThan(0);
    expect(roles.some((p) => p.name === 'knob' || p.name === 'knob-search')).toBe(false);
    const weight = (mix: typeof def, name: string): number => mix.find((p) => p.name === name)?.weight ?? 0;
    expect(weight(roles, 'structural')).toBeCloseTo(weight(def, 'structural') + weight(def, 'knob') + weight(def, 'knob-search'), 9);
    for (const name of ['tune', 'crossover']) expect(weight(roles, name)).toBe(weight(def, name));
  });
});
