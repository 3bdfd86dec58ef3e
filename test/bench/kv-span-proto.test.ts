import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/common/rng.js';
import type { Call } from '../../bench/kv-replay/record.js';
import { BlockEngine } from '../../bench/kv-replay/span-proto/block-engine.js';
import { PAGE_BITS } from '../../bench/kv-replay/span-proto/count-ranges.js';
import { NaiveEngine } from '../../bench/kv-replay/span-proto/naive.js';
import { ADD, DETACH, FIT, MOVE, PUSH, WORDS, deriveOps, replayOps, type Engine } from '../../bench/kv-replay/span-proto/ops.js';
import { SpanEngine } from '../../bench/kv-replay/span-proto/span-engine.js';

const range = (from: number, len: number): number[] => Array.from({ length: len }, (_, i) => from + i);

/**
 * Calls shaped like bench:sim's: branches whose prompts extend their last
 * prompt (sometimes sharing a system prompt, sometimes cut short), decode
 * output a few blocks at a time, D holdings moving between nodes, branches
 * ending. Small tiers, so eviction and both classes are exercised.
 */
function randomCalls(rng: Rng, nodes: number, n: number): Call[] {
  const calls: Call[] = [];
  let nextId = 1000;
  const system = range(0, 24);
  const contexts = new Map<number, number[]>();
  let now = 0;
  for (let i = 0; i < n; i++) {
    const branch = rng.int(0, 11);
    const node = rng.int(0, nodes - 1);
    now += 1;
    const roll = rng.next();
    let ctx = contexts.get(branch);
    if (!ctx || roll < 0.05) {
      ctx = [...(rng.chance(0.7) ? system.slice(0, rng.int(4, 24)) : []), ...range(nextId, rng.int(1, 40))];
      nextId += 60;
      contexts.set(branch, ctx);
    }
    if (roll < 0.45) {
      // A prompt: the context, sometimes cut, plus new blocks.
      const cut = rng.chance(0.2) ? ctx.slice(0, rng.int(1, ctx.length)) : ctx;
      const prompt = [...cut, ...range(nextId, rng.int(0, 30))];
      if (rng.chance(0.03) && prompt.length > 1) prompt.push(prompt[0]!);
      nextId += 40;
      contexts.set(branch, prompt);
      calls.push([rng.chance(0.6) ? 'admitPrefill' : 'admitDecode', node, rng.chance(0.05) ? -1 : branch, prompt, now]);
    } else if (roll < 0.85) {
      const produced = range(nextId, rng.int(1, 9));
      nextId += 10;
      contexts.set(branch, [...ctx, ...produced]);
      calls.push(['addProduced', node, branch, produced, now]);
    } else if (roll < 0.93) {
      calls.push(['endBranch', branch]);
      contexts.delete(branch);
    } else {
      calls.push(['match', ctx]);
    }
  }
  return calls;
}

type Evictions = number[][];
function watch(e: Engine & { onEvict: ((nt: number, first: number, len: number) => void) | null }, nts: number): Evictions {
  const out: Evictions = Array.from({ length: nts }, () => []);
  e.onEvict = (nt, first, len) => {
    for (let id = first + len - 1; id >= first; id--) out[nt]!.push(id);
  };
  return out;
}

describe('bench:kv-span-proto: span run-queues and count ranges against the naive per-block model', () => {
  it('derives detach, push, fit and counts from an admit, and moves a released range to class 0', () => {
    const { log } = deriveOps(
      [
        ['admitPrefill', 0, 7, [...range(10, 4), ...range(20, 2)], 0],
        ['endBranch', 7],
      ],
      2,
    );
    const ops: number[][] = [];
    for (let o = 0; o < log.length; o += WORDS) ops.push([...log.ops.subarray(o, o + WORDS)]);
    expect(ops).toEqual([
      [DETACH, 0, 10, 4, 0],
      [DETACH, 0, 20, 2, 0],
      [ADD, 0, 10, 4, 1],
      [ADD, 0, 20, 2, 1],
      [PUSH, 0, 20, 2, 1],
      [PUSH, 0, 10, 4, 1],
      [FIT, 0, 0, 0, 0],
      [ADD, 0, 10, 4, -1],
      [MOVE, 0, 10, 4, 0],
      [ADD, 0, 20, 2, -1],
      [MOVE, 0, 20, 2, 0],
    ]);
  });

  it('evicts a partly evicted span from its deepest end, count-0 class first', () => {
    const l1 = [5];
    const l2 = [8];
    const ops = deriveOps(
      [
        ['admitPrefill', 0, 1, range(100, 4), 0],
        ['admitPrefill', 0, 2, range(200, 3), 1],
        ['endBranch', 2],
        ['admitPrefill', 0, 3, range(300, 2), 2],
      ],
      1,
    ).log.ops;
    const span = new SpanEngine(1, l1, l2);
    const naive = new NaiveEngine(1, l1, l2);
    const a = watch(span.queues, 2);
    const b = watch(naive, 2);
    replayOps(ops, span);
    replayOps(ops, naive);
    // L1 (5): 202..200 arrive counted, so the counted 103, 102 go; then 300, 301 take the released 202, 201 first.
    expect(a[0]).toEqual([103, 102, 202, 201]);
    expect(a).toEqual(b);
    expect(span.queues.spansOf(0)).toEqual([
      [100, 2, 1],
      [200, 1, 0],
      [300, 2, 1],
    ]);
  });

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`same evictions, block by block, and same counts on random calls (seed ${seed})`, () => {
      const rng = new Rng(seed);
      const nodes = 3;
      const l1 = [rng.int(8, 40), rng.int(8, 40), rng.int(30, 80)];
      const l2 = l1.map((c) => c * rng.int(2, 4));
      const calls = randomCalls(rng, nodes, 600);
      const { log } = deriveOps(calls, nodes);
      const span = new SpanEngine(nodes, l1, l2);
      const block = new BlockEngine(nodes, l1, l2);
      const naive = new NaiveEngine(nodes, l1, l2);
      const evS = watch(span.queues, nodes * 2);
      const evB = watch(block, nodes * 2);
      const evN = watch(naive, nodes * 2);
      const ops = log.ops;
      for (let o = 0; o < ops.length; o += WORDS) {
        const one = ops.subarray(o, o + WORDS);
        replayOps(one, span);
        replayOps(one, block);
        replayOps(one, naive);
        if (ops[o] === FIT) {
          for (let nt = 0; nt < nodes * 2; nt++) expect([evS[nt]!.length, evB[nt]!.length]).toEqual([evN[nt]!.length, evN[nt]!.length]);
        }
      }
      // The whole eviction sequence of each (node, tier), in order.
      expect(evS).toEqual(evN);
      expect(evB).toEqual(evN);
      for (let n = 0; n < nodes; n++) {
        const want = [...naive.counts[n]!.entries()].sort((x, y) => x[0] - y[0]);
        const got = span.counts.rangesOf(n).flatMap(([first, len, count]) => range(first, len).map((id) => [id, count]));
        expect(got).toEqual(want);
        // Maximal within a page: neighbouring ranges differ in count, are not contiguous, or meet at a page boundary.
        const rs = span.counts.rangesOf(n);
        for (let k = 1; k < rs.length; k++) {
          expect(rs[k - 1]![0] + rs[k - 1]![1] < rs[k]![0] || rs[k - 1]![2] !== rs[k]![2] || rs[k]![0] % (1 << PAGE_BITS) === 0).toBe(true);
        }
        for (const [id, c] of want) expect(block.store.i32[(block.find(id, n) << 4) + 2]).toBe(c);
        for (let t = 0; t < 2; t++) {
          const res = span.queues.spansOf(n * 2 + t).flatMap(([first, len, cls]) => range(first, len).map((id) => [id, cls]));
          const wantRes = [...naive.resident[n * 2 + t]!.entries()].map(([id, e]) => [id, e.cls]).sort((x, y) => x[0]! - y[0]!);
          expect(res).toEqual(wantRes);
          expect(span.queues.used[n * 2 + t]).toBe(wantRes.length);
          expect(block.used[n * 2 + t]).toBe(wantRes.length);
        }
      }
      expect(span.counts.zeroed).toBe(block.zeroed);
      expect(evN.flat().length).toBeGreaterThan(50);
    });
  }
});
