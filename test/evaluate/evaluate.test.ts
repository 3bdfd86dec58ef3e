import { describe, expect, it } from 'vitest';
import { evaluatePolicy, parseSchedCost } from '../../src/evaluate/index.js';
import { smallCcSnapshot } from './fixtures.js';

const snapshot = smallCcSnapshot;

// Flips one node between P and D every other minute: the same decisions, cheap or expensive.
const flipper = (burnMs: number) => `
let sink = 0;
function burn(n) { let x = 1; for (let i = 0; i < n * 200000; i++) x = (x * 31 + i) % 1000003; sink += x; }
function shouldReschedule(ctx) { return ctx.now >= 60 && Math.floor(ctx.now / 120) !== Math.floor((ctx.now - 5) / 120); }
function schedule(ctx) {
  burn(${burnMs});
  const roles = ctx.plan.roles.slice();
  roles[4] = roles[4] === 'P' ? 'D' : 'P';
  return { roles };
}`;

describe('evaluatePolicy', () => {
  it('returns T_total whose breakdown adds up', () => {
    const e = evaluatePolicy(snapshot, { name: 'flipper', source: flipper(0) }, { schedCost: parseSchedCost('measured') });
    const b = e.breakdown;
    expect(e.drained).toBe(true);
    expect(b.reschedules).toBeGreaterThan(0);
    expect(b.schedSeconds + b.staleSeconds + b.reconfigSeconds + b.serveSeconds).toBeCloseTo(e.fitness.tTotal, 9);
    expect(b.makespanSeconds + b.schedSeconds).toBeCloseTo(e.fitness.tTotal, 9);
    expect(e.failures).toEqual([]);
    expect(e.features.rescheduleCount).toBe(b.reschedules);
    expect(e.features.nodesSwitchedPerReschedule).toBe(1);
  });

  it('charges CPU burnt in schedule: same decisions, worse T_total', () => {
    const cheap = evaluatePolicy(snapshot, { name: 'cheap', source: flipper(0) }, { schedCost: parseSchedCost('measured') });
    const costly = evaluatePolicy(snapshot, { name: 'costly', source: flipper(60) }, { schedCost: parseSchedCost('measured'), sandbox: { cpuLimitMs: 2000 } });
    expect(costly.breakdown.reschedules).toBe(cheap.breakdown.reschedules);
    expect(costly.breakdown.schedSeconds).toBeGreaterThan(cheap.breakdown.schedSeconds * 5);
    expect(costly.fitness.tTotal).toBeGreaterThan(cheap.fitness.tTotal);
    expect(costly.features.schedCpuMsPerCall).toBeGreaterThan(cheap.features.schedCpuMsPerCall);
  });

  it('sched-cost zero and fixed:MS charge what they say, deterministically', () => {
    const zero = evaluatePolicy(snapshot, { name: 'f', source: flipper(5) }, { schedCost: parseSchedCost('zero') });
    expect(zero.breakdown.schedSeconds).toBe(0);
    const a = evaluatePolicy(snapshot, { name: 'f', source: flipper(5) }, { schedCost: parseSchedCost('fixed:2') });
    const b = evaluatePolicy(snapshot, { name: 'f', source: flipper(5) }, { schedCost: parseSchedCost('fixed:2') });
    expect(a.fitness.tTotal).toBe(b.fitness.tTotal);
    expect(JSON.stringify(a.metrics)).toBe(JSON.stringify(b.metrics));
    // 2 ms per call on every monitoring step after the warm-up, plus the schedule calls.
    expect(a.breakdown.schedSeconds).toBeGreaterThan(0.002 * 40);
  });

  it('a policy that fails keeps the last good plan and reports its failures by kind', () => {
    const throwing = `function shouldReschedule(ctx) { return true; } function schedule(ctx) { throw new Error('nope'); }`;
    const e = evaluatePolicy(snapshot, { name: 'throwing', source: throwing }, { schedCost: parseSchedCost('zero') });
    expect(e.finalSplit).toBe('4P5D');
    expect(e.failures[0]).toMatchObject({ kind: 'throw' });
    expect(e.failures[0]!.count).toBeGreaterThan(10);
    expect(e.metrics.requestsInFlight).toBe(0);
  });

  it('a policy that does not compile is scored as the split it could not change', () => {
    const e = evaluatePolicy(snapshot, { name: 'broken', source: 'function shouldReschedule( {' }, { schedCost: parseSchedCost('zero') });
    expect(e.failures).toEqual([expect.objectContaining({ kind: 'compile', count: 1 })]);
    expect(e.finalSplit).toBe('4P5D');
    expect(e.drained).toBe(true);
  });

  it('an invalid plan is rejected, typed, and serving goes on', () => {
    const allPrefill = `function shouldReschedule(ctx) { return true; } function schedule(ctx) { return { roles: ctx.nodes.map(() => 'P') }; }`;
    const e = evaluatePolicy(snapshot, { name: 'all-p', source: allPrefill }, { schedCost: parseSchedCost('zero') });
    expect(e.failures[0]).toMatchObject({ kind: 'invalid-plan' });
    expect(e.finalSplit).toBe('4P5D');
  });
});
