import { describe, expect, it } from 'vitest';
import { SimulationInvariantError } from '../../../src/common/errors.js';
import { DecodeBatch, type DecodeFinish } from '../../../src/sim/perf/decode-batch.js';

/** A batch whose iteration time is given by `f`, recording every call. */
function batch(f: (b: number, ctx: number) => number, tokensPerIteration = 1, maxBatch = 16) {
  const calls: Array<[number, number]> = [];
  const db = new DecodeBatch({
    iterTime: (b, ctx) => {
      calls.push([b, ctx]);
      return f(b, ctx);
    },
    tokensPerIteration,
    maxBatch,
  });
  return { db, calls };
}

/** Advance event by event to the end, as the simulator does. */
function drain(db: DecodeBatch): DecodeFinish[] {
  const out: DecodeFinish[] = [];
  for (let t = db.nextEventTime(); Number.isFinite(t); t = db.nextEventTime()) out.push(...db.advance(t));
  return out;
}

const close = (fs: DecodeFinish[]) => fs.map((f) => ({ id: f.id, at: Math.round(f.at * 1e9) / 1e9 }));

describe('DecodeBatch', () => {
  it('is idle when empty', () => {
    const { db } = batch(() => 0.01);
    expect(db.nextEventTime()).toBe(Infinity);
    expect(db.advance(100)).toEqual([]);
    expect(db.size).toBe(0);
    expect(db.iterationTime).toBe(0);
  });

  it('starts at once when idle; a mid-iteration joiner enters at the next boundary', () => {
    const { db } = batch(() => 0.01);
    db.join(0, 1, 3, 0);
    expect(db.size).toBe(1);
    db.join(0.005, 2, 2, 0);
    expect(db.waiting).toBe(1);
    expect(db.nextEventTime()).toBeCloseTo(0.01, 12);
    db.advance(0.01);
    expect(db.size).toBe(2);
    expect(db.waiting).toBe(0);
    // 1: iterations ending .01 .02 .03; 2: entered at .01, iterations ending .02 .03
    expect(close(drain(db))).toEqual([
      { id: 1, at: 0.03 },
      { id: 2, at: 0.03 },
    ]);
  });

  it('changes the iteration time from the next iteration on', () => {
    const { db, calls } = batch((b) => 0.01 * b);
    db.join(0, 1, 4, 0);
    db.join(0.015, 2, 1, 0);
    // B=1 (10 ms) until .02, where 2 enters; B=2 (20 ms) until .04, where 2 finishes; B=1 again.
    expect(close(drain(db))).toEqual([
      { id: 2, at: 0.04 },
      { id: 1, at: 0.05 },
    ]);
    expect(calls.map((c) => c[0])).toEqual([1, 2, 1]);
  });

  it('calls iterTime once per epoch, never per iteration', () => {
    const { db, calls } = batch(() => 0.02);
    db.join(0, 1, 1000, 0);
    expect(close(drain(db))).toEqual([{ id: 1, at: 20 }]);
    expect(calls).toHaveLength(1);
  });

  it('finishes after ceil(n / t_acc) iterations', () => {
    const { db } = batch(() => 0.01, 1.4);
    db.join(0, 1, 21, 0); // exactly 15 iterations, although 21 / 1.4 = 15.000000000000002
    db.join(0, 2, 22, 0); // joins at the epoch start: shares the batch, 16 iterations
    db.join(0, 3, 1, 0);
    expect(close(drain(db))).toEqual([
      { id: 3, at: 0.01 },
      { id: 1, at: 0.15 },
      { id: 2, at: 0.16 },
    ]);
  });

  it('passes the mean context including generated tokens', () => {
    const { db, calls } = batch(() => 0.01, 2);
    db.join(0, 1, 10, 1000);
    db.advance(0.025); // two iterations done: 1 has 4 tokens
    db.join(0.025, 2, 2, 3000);
    drain(db);
    expect(calls[0]).toEqual([1, 1000]);
    // at .03 (3 iterations done): (1000 + 6 + 3000) / 2
    expect(calls[1]![0]).toBe(2);
    expect(calls[1]![1]).toBeCloseTo(2003, 9);
  });

  it('keeps at most maxBatch running; the rest wait in FIFO order', () => {
    const { db } = batch(() => 0.01, 1, 2);
    db.join(0, 1, 2, 0);
    db.join(0.001, 2, 5, 0);
    db.join(0.002, 3, 1, 0);
    db.join(0.003, 4, 1, 0);
    expect(db.waiting).toBe(3);
    db.advance(0.01);
    expect(db.runningIds().sort()).toEqual([1, 2]);
    expect(db.waitingIds()).toEqual([3, 4]);
    // 1 ends .02 -> 3 enters, ends .03 -> 4 enters, ends .04; 2 entered .01, ends .06
    expect(close(drain(db))).toEqual([
      { id: 1, at: 0.02 },
      { id: 3, at: 0.03 },
      { id: 4, at: 0.04 },
      { id: 2, at: 0.06 },
    ]);
  });

  it('reports finishes in (time, id) order', () => {
    const { db } = batch(() => 0.01);
    for (const id of [5, 3, 9, 1]) db.join(0, id, 2, 0);
    expect(db.advance(1).map((f) => f.id)).toEqual([1, 3, 5, 9]);
  });

  it('reports a request with nothing to generate at its join time', () => {
    const { db, calls } = batch(() => 0.01);
    db.join(1, 7, 0, 500);
    expect(db.nextEventTime()).toBe(1);
    expect(db.size).toBe(0);
    expect(db.advance(1)).toEqual([{ id: 7, at: 1 }]);
    expect(calls).toHaveLength(0);
  });

  it('remove returns the tokens still to generate and changes B at the next boundary', () => {
    const { db, calls } = batch((b) => 0.01 * b, 1);
    db.join(0, 1, 10, 0);
    db.join(0, 2, 10, 0);
    db.advance(0.05); // B=2, 20 ms: 2 iterations done (.02, .04), third in progress
    expect(db.remove(1)).toBe(8);
    expect(db.size).toBe(1);
    expect(db.nextEventTime()).toBeCloseTo(0.06, 12);
    db.advance(0.06);
    expect(db.iterationTime).toBeCloseTo(0.01, 12);
    // 2 had 3 iterations at .06, 7 more of 10 ms
    expect(close(drain(db))).toEqual([{ id: 2, at: 0.13 }]);
    expect(calls.map((c) => c[0])).toEqual([1, 2, 1]);
  });

  it('remove of a waiting request returns all its tokens', () => {
    const { db } = batch(() => 0.01, 1, 1);
    db.join(0, 1, 5, 0);
    db.join(0, 2, 4, 0);
    expect(db.remove(2)).toBe(4);
    expect(db.waiting).toBe(0);
  });

  it('removing the last running request idles the batch at the next boundary', () => {
    const { db } = batch(() => 0.01);
    db.join(0, 1, 5, 0);
    db.advance(0.015);
    expect(db.remove(1)).toBe(4);
    db.advance(0.02);
    expect(db.nextEventTime()).toBe(Infinity);
    db.join(0.03, 2, 1, 0);
    expect(drain(db)).toEqual([{ id: 2, at: 0.04 }]);
  });

  it('takeWaiting hands over the waiting requests in order', () => {
    const { db } = batch(() => 0.01, 1, 1);
    db.join(0, 1, 5, 0);
    db.join(0.001, 2, 5, 0);
    db.join(0.002, 3, 5, 0);
    expect(db.takeWaiting()).toEqual([2, 3]);
    expect(db.waiting).toBe(0);
    expect(close(drain(db))).toEqual([{ id: 1, at: 0.05 }]);
  });

  it('clear empties everything', () => {
    const { db } = batch(() => 0.01);
    db.join(0, 1, 5, 0);
    db.join(0.001, 2, 5, 0);
    db.clear();
    expect(db.size + db.waiting).toBe(0);
    expect(db.nextEventTime()).toBe(Infinity);
    db.join(1, 1, 1, 0); // ids may be reused after a clear
    expect(drain(db)).toEqual([{ id: 1, at: 1.01 }]);
  });

  it('a join at the boundary where the epoch began re-opens it, with a new draw', () => {
    const { db, calls } = batch((b) => 0.01 * b);
    db.join(0, 1, 1, 0);
    db.join(0, 2, 2, 0);
    expect(db.nextEventTime()).toBe(0);
    db.advance(0);
    expect(db.size).toBe(2);
    expect(calls.map((c) => c[0])).toEqual([1, 2]);
    expect(close(drain(db))).toEqual([
      { id: 1, at: 0.02 },
      { id: 2, at: 0.03 },
    ]);
  });

  it('enforces its calling discipline', () => {
    const { db } = batch(() => 0.01);
    db.join(0, 1, 5, 0);
    expect(() => db.join(0.001, 1, 5, 0)).toThrow(SimulationInvariantError);
    db.join(0.02, 2, 1, 0); // no change before .02: fine
    expect(() => db.join(0.06, 5, 5, 0)).toThrow(/before advancing/); // 2 finished at .03
    db.advance(0.05);
    expect(() => db.join(0.04, 3, 5, 0)).toThrow(SimulationInvariantError);
    expect(() => db.remove(42)).toThrow(SimulationInvariantError);
    expect(() => db.join(0.05, 4, -1, 0)).toThrow(RangeError);
    expect(() => new DecodeBatch({ iterTime: () => 1, tokensPerIteration: 0, maxBatch: 1 })).toThrow(RangeError);
    const bad = new DecodeBatch({ iterTime: () => 0, tokensPerIteration: 1, maxBatch: 1 });
    expect(() => bad.join(0, 1, 1, 0)).toThrow(SimulationInvariantError);
  });
});
