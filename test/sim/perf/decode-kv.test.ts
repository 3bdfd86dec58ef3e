import { describe, expect, it } from 'vitest';
import { DecodeBatch, type DecodeFinish } from '../../../src/sim/perf/decode-batch.js';
import { DecodeKvBudget } from '../../../src/sim/perf/decode-kv.js';
import { MECHANICS_PRESETS, Simulator, parseMechanics, type Mechanics, type Role } from '../../../src/sim/index.js';
import { fakeHardware, range, scriptedSource, type ScriptedRequest } from '../helpers.js';

/** One-second iterations, one token each, so that finish times count iterations. */
function batch(kvCapacityTokens?: number, kvReserveTokens?: number) {
  return new DecodeBatch({ iterTime: () => 1, tokensPerIteration: 1, maxBatch: 16, kvCapacityTokens, kvReserveTokens });
}

function drain(db: DecodeBatch): DecodeFinish[] {
  const out: DecodeFinish[] = [];
  for (let t = db.nextEventTime(); Number.isFinite(t); t = db.nextEventTime()) out.push(...db.advance(t));
  return out;
}

const rounded = (fs: DecodeFinish[]) => fs.map((f) => ({ id: f.id, at: Math.round(f.at * 1e9) / 1e9 }));

describe('DecodeBatch with a GPU KV capacity', () => {
  it('admits only what fits: the second request waits for the first to finish', () => {
    // 60 + 50 KV tokens do not fit in 100.
    const db = batch(100);
    db.join(0, 1, 5, 60, 60);
    db.join(0, 2, 3, 50, 50);
    expect(db.size).toBe(1);
    expect(db.waiting).toBe(1);
    expect(rounded(drain(db))).toEqual([{ id: 1, at: 5 }, { id: 2, at: 8 }]);
    expect(db.retractions).toBe(0);
    // Unbounded, the same requests run together.
    const free = batch();
    free.join(0, 1, 5, 60, 60);
    free.join(0, 2, 3, 50, 50);
    expect(rounded(drain(free))).toEqual([{ id: 2, at: 3 }, { id: 1, at: 5 }]);
  });

  it('holds back the reserve of every running request when admitting', () => {
    // 10 + 10 tokens fit in 100, but not with 2 x 45 reserved.
    const db = batch(100, 45);
    db.join(0, 1, 4, 10, 10);
    db.join(0, 2, 4, 10, 10);
    expect(rounded(drain(db))).toEqual([{ id: 1, at: 4 }, { id: 2, at: 8 }]);
    const roomy = batch(100, 40);
    roomy.join(0, 1, 4, 10, 10);
    roomy.join(0, 2, 4, 10, 10);
    expect(rounded(drain(roomy))).toEqual([{ id: 1, at: 4 }, { id: 2, at: 4 }]);
  });

  it('stops at the head of the queue: a small request behind a big one waits too', () => {
    const db = batch(100);
    db.join(0, 1, 5, 60, 60);
    db.join(0, 2, 2, 50, 50); // does not fit
    db.join(0, 3, 2, 10, 10); // would fit, but is behind 2
    expect(rounded(drain(db))).toEqual([{ id: 1, at: 5 }, { id: 2, at: 7 }, { id: 3, at: 7 }]);
  });

  it('retracts the latest request when the growing KV runs out, and re-queues it to finish exactly once', () => {
    // 40 + 40 fit in 100; each iteration adds 2 tokens, so the iteration at
    // boundary 10 (80 + 20 held, 2 more needed) does not fit: request 2 (the
    // tie goes to the higher id) leaves with 10 of its 30 tokens generated.
    const db = batch(100);
    db.join(0, 1, 30, 40, 40);
    db.join(0, 2, 30, 40, 40);
    const done = drain(db);
    expect(db.retractions).toBe(1);
    // Request 1 then runs alone to 30 (50 + 20 = 70 tokens); 2 resumes with 20 to go.
    expect(rounded(done)).toEqual([{ id: 1, at: 30 }, { id: 2, at: 50 }]);
    expect(new Set(done.map((f) => f.id)).size).toBe(done.length);
    expect(db.has(1) || db.has(2)).toBe(false);
    // Without the capacity both finish at 30.
    const free = batch();
    free.join(0, 1, 30, 40, 40);
    free.join(0, 2, 30, 40, 40);
    expect(rounded(drain(free))).toEqual([{ id: 1, at: 30 }, { id: 2, at: 30 }]);
  });

  it('never retracts the last running request, whatever its size', () => {
    const db = batch(10);
    db.join(0, 1, 50, 40, 40);
    expect(rounded(drain(db))).toEqual([{ id: 1, at: 50 }]);
    expect(db.retractions).toBe(0);
  });

  it('returns what a retracted request still has to generate when it is removed while waiting', () => {
    const db = batch(100);
    db.join(0, 1, 30, 40, 40);
    db.join(0, 2, 30, 40, 40);
    db.advance(10);
    expect(db.retractions).toBe(1);
    expect(db.waitingIds()).toEqual([2]);
    expect(db.remove(2)).toBe(20);
    expect(rounded(drain(db))).toEqual([{ id: 1, at: 30 }]);
  });

  it('finds the overflow boundary in closed form', () => {
    const kv = new DecodeKvBudget(100, 0, 1);
    // U(I + 1) = 80 + 2 (I + 1) > 100 first at I = 10.
    expect(kv.overflowIndex(80, 0, 2)).toBe(10);
    expect(kv.overflowIndex(80, 0, 1)).toBe(Infinity);
    expect(new DecodeKvBudget(Infinity, 0, 1).overflowIndex(1e12, 0, 5)).toBe(Infinity);
    expect(() => new DecodeKvBudget(0, 0, 1)).toThrow(RangeError);
  });
});

describe('mechanics decodeKv', () => {
  const base: Mechanics = { ...MECHANICS_PRESETS['evolving-infra'], prefillRouting: 'even-load' };

  function run(decodeKv: Mechanics['decodeKv'], requests: ScriptedRequest[]) {
    const roles: Role[] = ['P', 'D'];
    const source = scriptedSource(requests);
    // 4 GPU blocks: 2,048 tokens of KV per node.
    const sim = new Simulator({
      hardware: roles.map(() => fakeHardware({ l1Blocks: 4, l2Blocks: 100 })),
      roles,
      mechanics: { ...base, decodeKv },
      source,
      seed: 1,
      warmupSeconds: 0,
      scoredSeconds: 3600,
      learning: 'given',
    });
    return { result: sim.run(), source, sim };
  }

  it('is off in every preset and parses as an override', () => {
    for (const m of Object.values(MECHANICS_PRESETS)) expect(m.decodeKv).toBe('unbounded');
    expect(parseMechanics('sglang-pd,decodeKv=gpu').decodeKv).toBe('gpu');
    expect(() => parseMechanics('sglang-pd,decodeKv=host')).toThrow(/decodeKv/);
  });

  it('makes a decode node with tiny GPU KV take one 1,000-token request at a time', () => {
    // 1,000 + 1,000 tokens plus 2 x 512 reserved do not fit in 2,048.
    const requests: ScriptedRequest[] = [
      { at: 0, input: 1000, output: 101, blocks: range(0, 2) },
      { at: 0, input: 1000, output: 101, blocks: range(10, 2) },
    ];
    const off = run('unbounded', requests).source.completed;
    const on = run('gpu', requests).source.completed;
    // Unbounded, the second decodes next to the first, a prefill (0.11 s) behind it.
    expect(Math.abs(off.get(1)! - off.get(0)!)).toBeLessThan(0.5);
    // Bounded, it waits for the first's 100 iterations of 0.02 s.
    expect(Math.abs(on.get(1)! - on.get(0)!)).toBeCloseTo(100 * 0.02, 6);
  });

  it('retracts on the node and still completes every request exactly once', () => {
    // 100 + 100 tokens fit, but 2 x 2,000 generated tokens do not.
    const requests: ScriptedRequest[] = [
      { at: 0, input: 100, output: 2001, blocks: [0] },
      { at: 0, input: 100, output: 2001, blocks: [10] },
    ];
    const { result, source, sim } = run('gpu', requests);
    expect(source.completions.slice().sort()).toEqual([0, 1]);
    expect(result.metrics.requestsCompleted).toBe(2);
    expect(result.metrics.requestsInFlight).toBe(0);
    expect(sim.done).toBe(true);
    const off = run('unbounded', requests).source.completed;
    expect(Math.max(...source.completed.values())).toBeGreaterThan(Math.max(...off.values()) + 1);
  });
});
