import { describe, expect, it } from 'vitest';
import { chargedSeconds, evaluatePolicy, NS_PER_CALL, NS_PER_OP, parseSchedCost } from '../../src/evaluate/index.js';
import { InputError } from '../../src/common/errors.js';
import { smallCcSnapshot } from './fixtures.js';

const snapshot = smallCcSnapshot;

// The same decisions (flip node 4 every other minute) with `n` loop iterations of work per call.
const looper = (n: number) => `
let sink = 0;
function work(n) { let x = 1; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; sink += x; }
function shouldReschedule(ctx) { work(${n}); return ctx.now >= 60 && Math.floor(ctx.now / 120) !== Math.floor((ctx.now - 5) / 120); }
function schedule(ctx) {
  work(${n});
  const roles = ctx.plan.roles.slice();
  roles[4] = roles[4] === 'P' ? 'D' : 'P';
  return { roles };
}`;

const counted = parseSchedCost('counted');

describe('sched-cost counted', () => {
  it('parses, and charges ops x NS_PER_OP + NS_PER_CALL per call', () => {
    expect(counted).toEqual({ kind: 'counted' });
    expect(chargedSeconds(counted, { cpuMs: 123, ops: 1000 })).toBeCloseTo((1000 * NS_PER_OP + NS_PER_CALL) / 1e9, 15);
    expect(chargedSeconds(counted, { cpuMs: 0, ops: 1000 })).toBe(chargedSeconds(counted, { cpuMs: 999, ops: 1000 }));
    expect(() => parseSchedCost('count')).toThrow(InputError);
  });

  it('10x the loop work pays about 10x the scheduling time, with the same decisions', () => {
    const light = evaluatePolicy(snapshot, { name: 'light', source: looper(20_000) }, { schedCost: counted, sandbox: { cpuLimitMs: 5000 } });
    const heavy = evaluatePolicy(snapshot, { name: 'heavy', source: looper(200_000) }, { schedCost: counted, sandbox: { cpuLimitMs: 5000 } });
    expect(light.failures).toEqual([]);
    expect(heavy.failures).toEqual([]);
    expect(heavy.breakdown.reschedules).toBe(light.breakdown.reschedules);
    const ratio = heavy.breakdown.schedSeconds / light.breakdown.schedSeconds;
    expect(ratio).toBeGreaterThan(8);
    expect(ratio).toBeLessThan(12);
    expect(heavy.fitness.tTotal).toBeGreaterThan(light.fitness.tTotal);
    // The feature is the charged ms per call: about 10x too, and the same figure every run.
    const featureRatio = heavy.features.schedCpuMsPerCall / light.features.schedCpuMsPerCall;
    expect(featureRatio).toBeGreaterThan(8);
    expect(featureRatio).toBeLessThan(12);
  });

  it('is deterministic: the same evaluation twice gives the same JSON, features included', () => {
    const source = looper(5_000);
    const a = evaluatePolicy(snapshot, { name: 'f', source }, { schedCost: counted });
    const b = evaluatePolicy(snapshot, { name: 'f', source }, { schedCost: counted });
    expect(a.breakdown.schedSeconds).toBeGreaterThan(0);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('charges a policy that does nothing only the fixed cost per call', () => {
    const idle = `function shouldReschedule(ctx) { return false; }\nfunction schedule(ctx) { return { roles: ctx.plan.roles }; }`;
    const e = evaluatePolicy(snapshot, { name: 'idle', source: idle }, { schedCost: counted });
    // One op per call (the function entry).
    expect(e.features.schedCpuMsPerCall).toBeCloseTo((NS_PER_OP + NS_PER_CALL) / 1e6, 9);
  });
});
