import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSnapshot, evaluatePolicy, forgetSnapshotEngineModels, parseSchedCost, replaySnapshot, snapshotEngineModel } from '../../src/evaluate/index.js';
import { buildCluster, parseSplit } from '../../src/sim/index.js';
import { packageRoot } from '../../src/common/package-root.js';
import { createTraceSource } from '../../src/workload/index.js';
import { smallCcSnapshot, smallCcSpec } from './fixtures.js';

const seed = (name: string) => ({ name, source: readFileSync(join(packageRoot(), 'seeds', `${name}.js`), 'utf8') });
const options = { schedCost: parseSchedCost('counted') };
// Reschedules every 2 minutes after the first, with ctx.model in its answer's shape: what it sees is what it acts on.
const modelReader = `
function shouldReschedule(ctx) { return ctx.now >= 60 && ctx.now % 120 === 0; }
function schedule(ctx) {
  const m = ctx.model.byKind.gb300;
  const roles = ctx.plan.roles.slice();
  roles[4] = m.prefill.c1 > 0 && m.decode.d0 > 0 ? (roles[4] === 'P' ? 'D' : 'P') : roles[4];
  return { roles };
}`;

describe('the engine model of a snapshot', () => {
  it('is learned once: the memoised model equals one learned afresh, and a rebuilt snapshot of the same content shares it', () => {
    const first = snapshotEngineModel(smallCcSnapshot);
    expect(snapshotEngineModel(smallCcSnapshot)).toBe(first);
    forgetSnapshotEngineModels();
    const fresh = snapshotEngineModel(smallCcSnapshot);
    expect(fresh).not.toBe(first);
    expect(fresh).toEqual(first);
    // Built again from the same spec: another object, the same content.
    const rebuilt = buildSnapshot(structuredClone(smallCcSpec));
    expect(snapshotEngineModel({ ...rebuilt, label: 'another name' })).toBe(fresh);
  });

  it('is the fit, not the prior, and another seed (other work) gives another model', () => {
    const model = snapshotEngineModel(smallCcSnapshot).gb300!;
    const prior = buildCluster(smallCcSnapshot.nodeKinds, createTraceSource(smallCcSnapshot.trace, { name: 'x' }).model, 3).hardware[0]!.engineSetup!.prior;
    expect(model.prefill).not.toEqual(prior.prefill);
    expect(model.decode).not.toEqual(prior.decode);
    const other = snapshotEngineModel({ ...smallCcSnapshot, seed: 4 }).gb300!;
    expect(other).not.toEqual(model);
  });

  it('a replay learns nothing: the engine and ctx.model use the snapshot model from the start', () => {
    const { sim } = replaySnapshot(smallCcSnapshot, undefined, 4);
    expect(sim.learning.mode).toBe('given');
    const seen: unknown[] = [];
    const hook = {
      shouldReschedule: (ctx: { model: unknown }) => (seen.push(ctx.model), { ok: true as const, value: false, cpuSeconds: 0 }),
      schedule: () => ({ ok: false as const, failure: { kind: 'throw', message: 'unused' }, cpuSeconds: 0 }),
    };
    replaySnapshot(smallCcSnapshot, hook as never, 4);
    const model = snapshotEngineModel(smallCcSnapshot).gb300!;
    expect(seen.length).toBeGreaterThan(10);
    for (const m of seen) expect((m as { byKind: Record<string, { prefill: unknown; decode: unknown }> }).byKind.gb300).toMatchObject({ prefill: model.prefill, decode: model.decode });
  });

  it('a replay at other roles (the suite\'s static splits) can run on the snapshot\'s own model', () => {
    const seen: { byKind: Record<string, { prefill: unknown; decode: unknown }> }[] = [];
    const hook = {
      shouldReschedule: (ctx: { model: (typeof seen)[number] }) => (seen.push(ctx.model), { ok: true as const, value: false, cpuSeconds: 0 }),
      schedule: () => ({ ok: false as const, failure: { kind: 'throw', message: 'unused' }, cpuSeconds: 0 }),
    };
    const own = snapshotEngineModel(smallCcSnapshot);
    const other = { ...smallCcSnapshot, roles: parseSplit('3P6D', 9) };
    replaySnapshot(other, hook as never, 4, own);
    expect(seen.length).toBeGreaterThan(10);
    for (const m of seen) expect(m.byKind.gb300).toMatchObject({ prefill: own.gb300!.prefill, decode: own.gb300!.decode });
  });

  it("a candidate's result does not depend on what was evaluated before it, nor on whether the model was memoised", () => {
    const a = seed('evolving-infra');
    const b = { name: 'model-reader', source: modelReader };
    forgetSnapshotEngineModels();
    const bAlone = evaluatePolicy(smallCcSnapshot, b, options);
    forgetSnapshotEngineModels();
    evaluatePolicy(smallCcSnapshot, a, options);
    evaluatePolicy(smallCcSnapshot, seed('greedy'), options);
    const bAfter = evaluatePolicy(smallCcSnapshot, b, options);
    expect(bAlone.breakdown.reschedules).toBeGreaterThan(0);
    expect(JSON.stringify(bAfter)).toBe(JSON.stringify(bAlone));
  });
});
