import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { DecodeBatch, type DecodeFinish } from '../../../src/sim/perf/decode-batch.js';
import { ReferenceDecodeBatch } from './reference-decode-batch.js';

/**
 * The closed form against the iteration-by-iteration reference on random
 * histories: joins at random times, at change times, at exact iteration
 * boundaries and in bursts at one instant; random token counts (some zero);
 * removals and hand-overs of waiting requests; small batch limits so that
 * requests queue. Both get the same noisy iterTime stream, so they agree
 * only if they call it with the same batches in the same order. The second
 * case adds a GPU KV capacity (admission, head-of-line blocking, retraction).
 */

const CASES = 400;
const REL = 1e-9;

interface Trace {
  finishes: DecodeFinish[];
  calls: Array<[number, number]>;
  removed: number[];
}

function relClose(a: number, b: number): boolean {
  return Math.abs(a - b) <= REL * Math.max(1, Math.abs(a), Math.abs(b));
}

function runCase(seed: number, withKv = false): { closed: Trace; ref: Trace; ops: number; retractions: number } {
  const rng = new Rng(seed);
  // KV: drawn from a stream of its own, so that the histories without it stay the same.
  const kvRng = new Rng(seed ^ 0x6b76);
  // Off the grid of sums of whole tokens and t_acc multiples, so that no boundary fits exactly (float noise would decide it).
  const kvCapacityTokens = withKv ? kvRng.pick([2_000, 6_000, 20_000, kvRng.uniform(1_000, 30_000)]) + 0.37 : undefined;
  const kvReserveTokens = withKv ? kvRng.pick([0, 16, 512]) : undefined;
  // 1.4 and 2.3 make n / t_acc land a hair above an integer (21 / 1.4 = 15.000000000000002).
  const tAcc = rng.pick([1, 1.4, 2, 2.3, 2.7, 2.9, 3, rng.uniform(1, 4)]);
  const maxBatch = rng.pick([1, 2, 3, 5, 8, 16, 64]);
  const base = (b: number, ctx: number) => 0.008 + 0.0015 * b + 1e-9 * b * ctx;
  const traces: [Trace, Trace] = [
    { finishes: [], calls: [], removed: [] },
    { finishes: [], calls: [], removed: [] },
  ];
  const iterTime = (trace: Trace) => {
    const noise = new Rng(seed ^ 0x5eed);
    return (b: number, ctx: number) => {
      trace.calls.push([b, ctx]);
      return base(b, ctx) * noise.lognormal(1, 0.05);
    };
  };
  const closed = new DecodeBatch({ iterTime: iterTime(traces[0]), tokensPerIteration: tAcc, maxBatch, kvCapacityTokens, kvReserveTokens });
  const ref = new ReferenceDecodeBatch({ iterTime: iterTime(traces[1]), tokensPerIteration: tAcc, maxBatch, kvCapacityTokens, kvReserveTokens });

  let now = 0;
  let nextId = 1;
  const ops = rng.int(5, 120);
  for (let i = 0; i < ops; i++) {
    // Pick when the next operation happens.
    const r = rng.next();
    const epoch = closed.currentEpoch();
    let t: number;
    if (r < 0.2 && Number.isFinite(closed.nextEventTime())) t = closed.nextEventTime();
    else if (r < 0.35) t = now;
    else if (r < 0.45 && epoch) {
      // exactly on an iteration boundary of the current epoch, maybe not a change
      const k = Math.max(0, Math.ceil((now - epoch.startedAt) / epoch.iterationTime)) + rng.int(0, 3);
      t = epoch.startedAt + k * epoch.iterationTime;
    } else t = now + rng.exponential(rng.pick([0.005, 0.05, 0.5]));
    now = Math.max(now, t);
    traces[0].finishes.push(...closed.advance(now));
    traces[1].finishes.push(...ref.advance(now));

    const op = rng.next();
    if (op < 0.75) {
      const id = nextId++;
      const tokens = rng.chance(0.05) ? 0 : rng.chance(0.3) ? rng.int(1, 8) : rng.int(1, 400);
      const ctx = rng.int(0, 120_000);
      const kv = withKv ? kvRng.int(0, 3_000) : 0;
      closed.join(now, id, tokens, ctx, kv);
      ref.join(now, id, tokens, ctx, kv);
    } else if (op < 0.88) {
      const ids = [...closed.runningIds(), ...closed.waitingIds()];
      if (ids.length > 0) {
        const id = rng.pick(ids);
        traces[0].removed.push(closed.remove(id));
        traces[1].removed.push(ref.remove(id));
      }
    } else if (op < 0.91) {
      expect(closed.takeWaiting()).toEqual(ref.takeWaiting());
    }
    expect(closed.size, `seed ${seed} op ${i}: running`).toBe(ref.size);
    expect(closed.waiting, `seed ${seed} op ${i}: waiting`).toBe(ref.waiting);
  }
  traces[0].finishes.push(...closed.advance(Infinity));
  traces[1].finishes.push(...ref.advance(Infinity));
  expect(closed.nextEventTime()).toBe(Infinity);
  expect(closed.retractions, `seed ${seed}: retractions`).toBe(ref.retractions);
  return { closed: traces[0], ref: traces[1], ops, retractions: closed.retractions };
}

describe('DecodeBatch closed form vs. iteration-by-iteration reference', () => {
  it(`agrees on ${CASES} random histories: finish order, finish times, per-epoch iteration times`, () => agreeOn(false));
  it(`agrees on ${CASES} random histories with a GPU KV capacity (admission, retraction)`, () => agreeOn(true));
});

/** Both run the same histories (with a KV capacity or not) and must agree on every finish, epoch and removal. */
function agreeOn(withKv: boolean): void {
  let finishes = 0;
  let epochs = 0;
  let retractions = 0;
  for (let seed = 1; seed <= CASES; seed++) {
    const { closed, ref, retractions: r } = runCase(seed, withKv);
    retractions += r;
    const ctx = `seed ${seed}`;
    expect(closed.finishes.map((f) => f.id), ctx).toEqual(ref.finishes.map((f) => f.id));
    closed.finishes.forEach((f, i) => {
      const g = ref.finishes[i]!;
      if (!relClose(f.at, g.at)) expect.fail(`${ctx}: finish of ${f.id} at ${f.at} vs ${g.at}`);
    });
    expect(closed.calls.length, ctx).toBe(ref.calls.length);
    closed.calls.forEach(([b, c], i) => {
      const [rb, rc] = ref.calls[i]!;
      expect(b, `${ctx}: epoch ${i} batch size`).toBe(rb);
      if (!relClose(c, rc)) expect.fail(`${ctx}: epoch ${i} mean context ${c} vs ${rc}`);
    });
    expect(closed.removed.length).toBe(ref.removed.length);
    closed.removed.forEach((n, i) => {
      if (!relClose(n, ref.removed[i]!)) expect.fail(`${ctx}: removal ${i} left ${n} vs ${ref.removed[i]}`);
    });
    finishes += closed.finishes.length;
    epochs += closed.calls.length;
  }
  // The histories are not trivial.
  expect(finishes).toBeGreaterThan(CASES * 10);
  expect(epochs).toBeGreaterThan(CASES * 10);
  if (withKv) expect(retractions).toBeGreaterThan(50);
}
