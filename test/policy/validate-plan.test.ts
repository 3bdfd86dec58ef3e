import { describe, expect, it } from 'vitest';
import { sampleCtx, validatePlan, type Ctx, type Role } from '../../src/policy/index.js';

function ctxWith(states: Ctx['nodes'][number]['state'][], limits = { minPrefill: 1, minDecode: 1 }): Ctx {
  const ctx = sampleCtx({ nodes: states.length, prefillNodes: 1 });
  states.forEach((s, i) => (ctx.nodes[i]!.state = s));
  ctx.limits = limits;
  return ctx;
}
const roles = (s: string): Role[] => s.split('') as Role[];

describe('validatePlan', () => {
  const four = ctxWith(['active', 'active', 'switching', 'restarting']);

  it('accepts one role per node with both phases among up nodes', () => {
    const r = validatePlan({ roles: roles('PDDD') }, four);
    expect(r).toEqual({ ok: true, plan: { roles: roles('PDDD') } });
  });

  it('rejects a wrong length, naming both counts', () => {
    const r = validatePlan({ roles: roles('PDD') }, four);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/3 entries.*ctx.nodes has 4/);
    expect(validatePlan({ roles: roles('PDDDD') }, four).ok).toBe(false);
  });

  it('rejects bad shapes with a path', () => {
    const r = validatePlan({ roles: ['P', 'D', 'd', 'D'] }, four);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/^plan\.roles\[2\]:/);
    expect(validatePlan({ roles: roles('PDDD'), extra: 1 }, four).ok).toBe(false);
    expect(validatePlan(null, four).ok).toBe(false);
    expect(validatePlan([], four).ok).toBe(false);
  });

  it('rejects a plan without prefill or without decode among the up nodes', () => {
    expect(validatePlan({ roles: roles('DDDD') }, four).ok).toBe(false);
    expect(validatePlan({ roles: roles('PPPP') }, four).ok).toBe(false);
    const oneDown = ctxWith(['down', 'active', 'active', 'active']);
    // The only P is on the down node: no prefill among up nodes.
    const r = validatePlan({ roles: roles('PDDD') }, oneDown);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/0 prefill/);
    // Entries of down nodes are otherwise ignored.
    expect(validatePlan({ roles: roles('DPDD') }, oneDown).ok).toBe(true);
    expect(validatePlan({ roles: roles('PPDD') }, oneDown).ok).toBe(true);
  });

  it('honours larger minimums, and checks only the shape when too few nodes are up', () => {
    const strict = ctxWith(['active', 'active', 'active', 'active'], { minPrefill: 2, minDecode: 1 });
    expect(validatePlan({ roles: roles('PDDD') }, strict).ok).toBe(false);
    expect(validatePlan({ roles: roles('PPDD') }, strict).ok).toBe(true);
    const lonely = ctxWith(['active', 'down', 'down']);
    expect(validatePlan({ roles: roles('PDD') }, lonely).ok).toBe(true);
    expect(validatePlan({ roles: roles('DDD') }, lonely).ok).toBe(true);
    expect(validatePlan({ roles: roles('DD') }, lonely).ok).toBe(false);
  });
});
