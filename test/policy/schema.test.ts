import { describe, expect, it } from 'vitest';
import { CtxSchema, PlanSchema, sampleCtx } from '../../src/policy/index.js';

describe('Ctx and Plan schemas', () => {
  it('accept the sample ctx, in every size', () => {
    for (const nodes of [2, 9, 32]) {
      const ctx = sampleCtx({ nodes, slices: 10, seed: nodes });
      expect(CtxSchema.safeParse(ctx).success).toBe(true);
    }
  });

  it('accept per-request statistics that are null (a slice with no request)', () => {
    const ctx = sampleCtx();
    const s = ctx.window.slices[0]!;
    Object.assign(s, { meanUncachedTokens: null, meanOutputTokens: null, ttftP50: null, e2eP95: null, kvHitRate: null });
    expect(CtxSchema.safeParse(ctx).success).toBe(true);
  });

  it('reject another version, unknown fields, non-finite numbers and unknown states', () => {
    const bad = (mutate: (c: Record<string, any>) => void): boolean => {
      const ctx = structuredClone(sampleCtx()) as Record<string, any>;
      mutate(ctx);
      return CtxSchema.safeParse(ctx).success;
    };
    expect(bad((c) => (c.version = 1))).toBe(false);
    expect(bad((c) => (c.version = 3))).toBe(false);
    expect(bad((c) => (c.extra = 1))).toBe(false);
    expect(bad((c) => (c.nodes[0].kv.extra = 1))).toBe(false);
    expect(bad((c) => (c.now = Infinity))).toBe(false);
    expect(bad((c) => (c.window.slices[0].meanDecodeQueue = NaN))).toBe(false);
    expect(bad((c) => (c.nodes[0].state = 'sleeping'))).toBe(false);
    expect(bad((c) => (c.nodes[0].role = 'X'))).toBe(false);
    expect(bad((c) => (c.lastRescheduleAt = null))).toBe(true);
    expect(bad((c) => (c.nodes[0].targetRole = 'D'))).toBe(true);
  });

  it('a plan is { roles } and nothing else', () => {
    expect(PlanSchema.safeParse({ roles: ['P', 'D'] }).success).toBe(true);
    expect(PlanSchema.safeParse({ roles: ['P', 'D'], note: 'x' }).success).toBe(false);
    expect(PlanSchema.safeParse({ roles: ['P', 'x'] }).success).toBe(false);
    expect(PlanSchema.safeParse(JSON.parse('{"roles":["P"],"__proto__":{"x":1}}')).success).toBe(false);
  });
});
