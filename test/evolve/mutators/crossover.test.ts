import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { buildSnapshotFromStrings, evaluatePolicy, parseSchedCost } from '../../../src/evaluate/index.js';
import { checkPolicy, createCrossoverMutator, crossPolicies } from '../../../src/evolve/mutators/index.js';
import { parsePolicy } from '../../../src/evolve/mutators/policy-shape.js';

const seed = (name: string) => readFileSync(resolve('seeds', `${name}.js`), 'utf8');
const snapshot = buildSnapshotFromStrings({ workload: 'cc', agents: 16, nodes: 9, split: '4P5D', nodeKinds: 'gb300', mechanics: 'evolving-infra', warmupMinutes: 0.5, minutes: 1, seed: 1 });

/** The source text of each top-level function, by name. */
function functions(code: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of parsePolicy(code).body) if (s.type === 'FunctionDeclaration' && s.id) out.set(s.id.name, code.slice(s.start, s.end));
  return out;
}

describe('function-level crossover', () => {
  it('keeps shouldReschedule from one parent and schedule from the other, and the result runs as a valid policy', () => {
    const trigger = seed('evolving-infra');
    const planner = seed('greedy');
    const out = crossPolicies(trigger, planner);
    const check = checkPolicy(out.code);
    expect(check.ok).toBe(true);
    const fns = functions(out.code);
    expect(fns.get('shouldReschedule')).toBe(functions(trigger).get('shouldReschedule'));
    // schedule comes from the planner, renamed helpers aside.
    let expected = functions(planner).get('schedule')!;
    for (const r of out.renamed) {
      const [from, to] = r.split(' -> ') as [string, string];
      expected = expected.replace(new RegExp(`\\b${from}\\b`, 'g'), to);
    }
    expect(fns.get('schedule')).toBe(expected);
    const e = evaluatePolicy(snapshot, { name: 'crossed', source: out.code }, { schedCost: parseSchedCost('fixed:1'), sandbox: { cpuLimitMs: 1000 } });
    expect(e.failures).toEqual([]);
  });

  it('renames a helper that both parents define differently, on the schedule side, and keeps a shared one once', () => {
    const a = `const LIMIT = 3;
function pick(ctx) { return ctx.nodes.length > LIMIT; }
function shared(x) { return x + 1; }
function shouldReschedule(ctx) { return pick(ctx) && shared(1) > 1; }
function schedule(ctx) { return null; }`;
    const b = `function pick(ctx) { const o = { pick: 1 }; return o.pick + ctx.nodes.length; }
function shared(x) { return x + 1; }
function shouldReschedule(ctx) { return false; }
function schedule(ctx) { return pick(ctx) > shared(2) ? null : null; }`;
    const out = crossPolicies(a, b);
    expect(out.renamed).toEqual(['pick -> pick_x2']);
    const fns = functions(out.code);
    expect([...fns.keys()].sort()).toEqual(['pick', 'pick_x2', 'schedule', 'shared', 'shouldReschedule']);
    expect(fns.get('pick')).toBe('function pick(ctx) { return ctx.nodes.length > LIMIT; }');
    // Property names are not renamed: only the helper and its uses.
    expect(fns.get('pick_x2')).toBe('function pick_x2(ctx) { const o = { pick: 1 }; return o.pick + ctx.nodes.length; }');
    expect(fns.get('schedule')).toBe('function schedule(ctx) { return pick_x2(ctx) > shared(2) ? null : null; }');
    expect(out.code.match(/function shared/g)).toHaveLength(1);
    expect(out.code).toContain('const LIMIT = 3;');
    expect(checkPolicy(out.code).ok).toBe(true);
  });

  it('as a mutator: crosses the parent with another elite, deterministic by rng, edit line names both', async () => {
    const mutator = createCrossoverMutator();
    const input = (n: number) => ({
      parent: { id: 3, code: seed('evolving-infra'), fitness: 1 },
      children: [],
      inspirations: [{ id: 5, code: seed('lookahead'), fitness: 1 }],
      best: null,
      recentStrategies: [],
      rng: new Rng(n),
    });
    const one = await mutator.mutate(input(1));
    expect(await mutator.mutate(input(1))).toEqual(one);
    expect(one.mutator).toBe('crossover');
    expect(one.editSummary).toMatch(/^crossover: shouldReschedule from #(3|5), schedule from #(5|3)/);
    expect(checkPolicy(one.code).ok).toBe(true);
    await expect(mutator.mutate({ ...input(1), inspirations: [] })).rejects.toMatchObject({ reason: 'no-edit' });
  });
});
