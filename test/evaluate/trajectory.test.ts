import { describe, expect, it } from 'vitest';
import { evaluateOrDiverge, evaluateTracked, parseSchedCost, type TrackedOptions } from '../../src/evaluate/index.js';
import { smallCcSnapshot } from './fixtures.js';

const snapshot = smallCcSnapshot;
const counted: TrackedOptions = { schedCost: parseSchedCost('counted') };

/**
 * Flips node 4 between P and D every other minute after the first. `idleLoop`
 * iterations run in shouldReschedule's calls that answer false (more counted
 * ops, the same answers), `planLoop` in schedule (a plan's cost delays it),
 * `flipEvery` sets the decisions, and a module-level counter makes the
 * policy stateful (it answers from what it saw in earlier calls).
 */
const flipper = (o: { idleLoop?: number; planLoop?: number; flipEvery?: number; unused?: number } = {}) => `
let seen = 0;
const UNUSED = ${o.unused ?? 1};
function shouldReschedule(ctx) {
  seen++;
  const flip = ctx.now >= 60 && Math.floor(ctx.now / ${o.flipEvery ?? 120}) !== Math.floor((ctx.now - 5) / ${o.flipEvery ?? 120});
  if (!flip) { let x = 0; for (let i = 0; i < ${o.idleLoop ?? 0}; i++) x += i; if (x < 0 || seen < 0 || UNUSED > 1e9) return true; }
  return flip;
}
function schedule(ctx) {
  let x = 0; for (let i = 0; i < ${o.planLoop ?? 0}; i++) x += i;
  const roles = ctx.plan.roles.slice();
  roles[4] = roles[4] === 'P' ? 'D' : 'P';
  return { roles };
}`;

function evaluate(source: string, options: TrackedOptions = counted) {
  return evaluateTracked(snapshot, { name: 'p', source }, options);
}

describe('trajectory reuse', () => {
  const parent = evaluate(flipper(), { ...counted, record: true });

  it('records under a deterministic cost, not under measured', () => {
    expect(parent.trajectory).toBeInstanceOf(Uint8Array);
    expect(parent.reused).toBe(false);
    expect(parent.evaluation.breakdown.reschedules).toBeGreaterThan(0);
    expect(evaluate(flipper(), { schedCost: parseSchedCost('measured'), record: true }).trajectory).toBeUndefined();
  });

  it('a child that answers as its parent did reuses the trajectory: the evaluation a simulation gives, bit for bit', () => {
    const child = flipper({ unused: 2 });
    const reused = evaluate(child, { ...counted, reuse: parent.trajectory });
    expect(reused.reused).toBe(true);
    expect(reused.evaluation).toEqual(evaluate(child).evaluation);
  });

  it('costs that delay no plan may differ: the policy CPU is summed again from the child\'s calls', () => {
    const child = flipper({ idleLoop: 50 });
    const reused = evaluate(child, { ...counted, reuse: parent.trajectory, record: true });
    const full = evaluate(child);
    expect(reused.reused).toBe(true);
    expect(reused.evaluation).toEqual(full.evaluation);
    expect(reused.evaluation.fitness.tTotal).toBeGreaterThan(parent.evaluation.fitness.tTotal);
    expect(reused.evaluation.breakdown.schedSeconds).toBeGreaterThan(parent.evaluation.breakdown.schedSeconds);
    // A reused evaluation packs nothing: the parent's trajectory serves as its own, for a grandchild like it too.
    expect(reused.trajectory).toBeUndefined();
    const grandchild = evaluate(flipper({ idleLoop: 50, unused: 3 }), { ...counted, reuse: parent.trajectory });
    expect(grandchild.reused).toBe(true);
    expect(grandchild.evaluation).toEqual(full.evaluation);
  });

  it('a cost that delays a plan, or another answer, is simulated: the same evaluation as without a trajectory', () => {
    for (const child of [flipper({ planLoop: 50 }), flipper({ flipEvery: 180 })]) {
      const tried = evaluate(child, { ...counted, reuse: parent.trajectory });
      expect(tried.reused).toBe(false);
      expect(tried.evaluation).toEqual(evaluate(child).evaluation);
      expect(tried.evaluation.fitness.tTotal).not.toBe(parent.evaluation.fitness.tTotal);
    }
  });

  it('a policy that fails to load is simulated without its trajectory, and records none', () => {
    const broken = evaluate('function shouldReschedule(ctx) {', { ...counted, reuse: parent.trajectory, record: true });
    expect(broken.reused).toBe(false);
    expect(broken.trajectory).toBeUndefined();
    expect(broken.evaluation.failures.length).toBe(1);
  });

  it("stops where a child first answers unlike the trajectory; a sibling's trajectory with that answer there is the child's", () => {
    expect(parent.trajectoryKeys!.length).toBeGreaterThan(0);
    const sibling = evaluate(flipper({ flipEvery: 180 }), { ...counted, record: true });
    const child = flipper({ flipEvery: 180, unused: 2 });
    const stopped = evaluateOrDiverge(snapshot, { name: 'child', source: child }, { ...counted, reuse: parent.trajectory! });
    if (!('divergence' in stopped)) throw new Error('the child answers as its parent did');
    const { at, key } = stopped.divergence;
    expect(at).toBeGreaterThan(0);
    expect(sibling.trajectoryKeys!.slice(0, at)).toEqual(parent.trajectoryKeys!.slice(0, at));
    expect(sibling.trajectoryKeys![at]).toBe(key);
    expect(parent.trajectoryKeys![at]).not.toBe(key);
    const reused = evaluate(child, { ...counted, reuse: sibling.trajectory });
    expect(reused.reused).toBe(true);
    expect(reused.evaluation).toEqual(evaluate(child).evaluation);
    // A neutral child is reused at once, as by evaluateTracked.
    const neutral = evaluateOrDiverge(snapshot, { name: 'neutral', source: flipper({ unused: 3 }) }, { ...counted, reuse: parent.trajectory! });
    expect('divergence' in neutral ? null : neutral.reused).toBe(true);
  });
});
