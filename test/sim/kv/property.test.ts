import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { KvDirectory, type EvictionOrder, type PrefixMatch } from '../../../src/sim/kv/index.js';
import type { SparseCounts } from '../../../src/sim/kv/match-result.js';
import { classIndex, sparseClasses, type Classes } from '../../../src/sim/routing/match-classes.js';
import { ReferenceKv } from './reference-model.js';
import { COUNT } from '../../../src/sim/kv/copy-store.js';

interface Setup {
  steps: number;
  /** Chance that an operation happens at the same time as the previous one. */
  sameTime: number;
  maxL1: number;
  maxL2: number;
  /** Contexts are compacted beyond this many blocks. */
  maxContext: number;
  /** Full comparison with the model, and the directory's own consistency check, every this many steps. */
  compareEvery: number;
  checkEvery: number;
  /**
   * Node count range; past 31 nodes the directory keeps copy lists instead
   * of masks. Most operations then go to a few nodes, so blocks still have
   * copies on several nodes.
   */
  nodes?: [number, number];
  /** Chance that an operation picks any node rather than one of the first five. */
  spread?: number;
  /** Half the new branches start with one shared system prompt, so its blocks end up on many nodes. */
  hot?: boolean;
  /**
   * Ids that no live context holds any more (an ended branch's, a compacted
   * context's dropped blocks) are retired, as a workload retires an ended
   * agent's ids: their slots are freed once no copy is left and reused.
   * Checked: the directory keeps no more slot groups than live ids plus
   * resident blocks, so slots are reused.
   */
  retire?: boolean;
  /** The first block id (default 0): past the trace format's 2^26 and past 2^32. */
  base?: number;
  /** Chance that a step ends its branch (default 0.08; about 0.15 keeps the number of live branches level). */
  endChance?: number;
  /**
   * Every call of a branch goes to another node than its last one, as most
   * cc prefills and decodes do: each admit releases the whole old holding
   * (the prefetch pass of release(), prefetch.ts) and each addProduced moves
   * the D holding (a D->D move).
   */
  hop?: boolean;
}

/**
 * The lazy counts' states seen (lazy-counts.ts; watched with `hop`, where
 * D->D moves make them): a count shared by two holdings, a count a record
 * took over when the block was placed on its node, and a slot counted lazily
 * on one node and through a record on another.
 */
interface LazyCoverage {
  shared: number;
  taken: number;
  beside: number;
}

/** The directory's parts observeLazy reads. */
interface LazyView {
  lazy: { data: Int32Array; countOn(slot: number, node: number): number };
  copies: { find(slot: number, node: number): number; store: { i32: Int32Array } };
}

/** Tally the lazy states now; `last` holds the lazy counts of the previous step (slot -> node) and is updated. */
function observeLazy(kv: KvDirectory, nodes: number, last: Map<number, number>, seen: LazyCoverage): void {
  const v = kv as unknown as LazyView;
  const counted = (slot: number, node: number): boolean => {
    const c = v.copies.find(slot, node);
    return c >= 0 && v.copies.store.i32[(c << 4) + COUNT]! > 0;
  };
  for (const [slot, node] of last) if (v.lazy.countOn(slot, node) === 0 && counted(slot, node)) seen.taken++;
  last.clear();
  const d = v.lazy.data;
  for (let slot = 0; slot * 2 < d.length; slot++) {
    const node = d[slot * 2]! - 1;
    if (node < 0) continue;
    last.set(slot, node);
    if (d[slot * 2 + 1]! > 1) seen.shared++;
    for (let n = 0; n < nodes; n++) {
      if (n !== node && counted(slot, n)) {
        seen.beside++;
        break;
      }
    }
  }
}

const SMALL: Setup = { steps: 400, sameTime: 0.3, maxL1: 8, maxL2: 14, maxContext: 24, compareEvery: 5, checkEvery: 1 };

/**
 * Random agent-like operations (appends, forks, sub-agents, compaction, moves,
 * hand-overs, produced blocks, branch ends, unsignalled requests, GPU clears,
 * node losses) on small capacities, checked against the naive reference
 * model and the directory's own full consistency check.
 */
function run(seed: number, eviction: EvictionOrder, setup: Setup): LazyCoverage {
  const { steps, sameTime, maxL1, maxL2, maxContext, compareEvery, checkEvery } = setup;
  const rng = new Rng(seed);
  const [minNodes, maxNodes] = setup.nodes ?? [2, 5];
  const nodes = rng.int(minNodes, maxNodes);
  const busy = Math.min(nodes, 5);
  const caps = Array.from({ length: nodes }, () => [rng.int(0, maxL1), rng.int(0, maxL2)]);
  if (caps.every(([l1]) => l1 === 0)) caps[0]![0] = 4;
  const kv = new KvDirectory({
    nodeCount: nodes,
    l1CapacityBlocks: caps.map((c) => c[0]!),
    l2CapacityBlocks: caps.map((c) => c[1]!),
    eviction,
  });
  const ref = new ReferenceKv(nodes, caps, eviction);
  // The nodes accepting prefill, as node bits: one array for the whole run (as routing's, candidates.ts), so the classes' counts are reused across matches.
  const accepting = new Int32Array((nodes + 31) >>> 5);
  // Its own draws, so the run's operations stay those of the seed.
  const pick = new Rng(seed + 7919);
  for (let n = 0; n < nodes; n++) if (pick.chance(0.7)) accepting[n >>> 5]! |= 1 << (n & 31);

  const base = setup.base ?? 0;
  let nextBlock = base;
  let nextBranch = 0;
  const contexts = new Map<number, number[]>();
  const fresh = (k: number): number[] => Array.from({ length: k }, () => nextBlock++);
  const system = setup.hot ? fresh(4) : [];
  let now = 0;
  let retired = 0;
  /** Retire the ids of `dropped` that no live context (nor the system prompt) holds, as runs of consecutive ids. */
  const retireDead = (dropped: readonly number[]): void => {
    if (!setup.retire) return;
    const held = new Set(system);
    for (const c of contexts.values()) for (const b of c) held.add(b);
    const dead = [...new Set(dropped)].filter((b) => !held.has(b)).sort((a, b) => a - b);
    for (let i = 0; i < dead.length; ) {
      let j = i + 1;
      while (j < dead.length && dead[j] === dead[j - 1]! + 1) j++;
      kv.retire(dead[i]!, j - i);
      retired += j - i;
      i = j;
    }
  };

  const lastNode = new Map<number, number>();
  const lazySeen: LazyCoverage = { shared: 0, taken: 0, beside: 0 };
  const lastLazy = new Map<number, number>();
  for (let step = 0; step < steps; step++) {
    now += rng.chance(sameTime) ? 0 : rng.uniform(0, 2);
    const branches = [...contexts.keys()];
    const op = rng.next();
    let node = nodes === busy || !rng.chance(setup.spread ?? 0.2) ? rng.int(0, busy - 1) : rng.int(0, nodes - 1);
    let branch: number;
    let ctx: number[];
    if (branches.length === 0 || op < 0.15) {
      // New branch: fresh context (sub-agent) or fork of an existing one.
      branch = nextBranch++;
      ctx = branches.length > 0 && rng.chance(0.5) ? [...contexts.get(rng.pick(branches))!, ...fresh(rng.int(0, 2))] : fresh(rng.int(1, Math.max(6, maxContext >> 2)));
      if (setup.hot && rng.chance(0.5)) ctx = [...system, ...ctx];
      contexts.set(branch, ctx);
    } else {
      branch = rng.pick(branches);
      ctx = contexts.get(branch)!;
    }
    if (setup.hop) {
      const last = lastNode.get(branch);
      if (last !== undefined && node === last) node = (last + 1 + rng.int(0, nodes - 2)) % nodes;
      lastNode.set(branch, node);
    }
    const r = rng.next();
    const end = setup.endChance ?? 0.08;
    if (r < end) {
      kv.endBranch(branch);
      ref.endBranch(branch);
      contexts.delete(branch);
      retireDead(ctx);
    } else if (r < end + 0.03) {
      kv.clearGpu(node);
      ref.clear(node, 1);
    } else if (r < end + 0.04) {
      kv.clearNode(node);
      ref.clear(node, 2);
    } else if (r < end + 0.22) {
      const produced = fresh(rng.int(0, 2));
      kv.addProduced(node, branch, produced, now);
      ref.admit(node, branch, 1, produced, true);
      contexts.set(branch, [...ctx, ...produced]);
    } else {
      if (rng.chance(0.1) || ctx.length > maxContext) {
        // Compaction: keep a prefix, add a summary.
        const old = ctx;
        ctx = [...ctx.slice(0, rng.int(0, ctx.length)), ...fresh(rng.int(1, 3))];
        contexts.set(branch, ctx);
        retireDead(old);
      } else {
        ctx = [...ctx, ...fresh(rng.int(0, 3))];
      }
      contexts.set(branch, ctx);
      const signalled = rng.chance(0.85) ? branch : -1;
      const phase = rng.chance(0.5) ? 0 : 1;
      if (phase === 0) kv.admitPrefill(node, signalled, ctx, now);
      else kv.admitDecode(node, signalled, ctx, now);
      ref.admit(node, signalled, phase, ctx, false);
    }
    // Blocks worth comparing: those of live contexts and the most recent ones.
    const seen = new Set<number>();
    for (let b = nextBlock - 1; b >= 0 && b >= nextBlock - 40; b--) seen.add(b);
    for (const c of contexts.values()) for (const b of c) seen.add(b);

    // Plain comparisons, one expect per step: expect() itself is too slow for thousands of checks.
    if (step % checkEvery === 0) kv.checkInvariants();
    if (setup.hop) observeLazy(kv, nodes, lastLazy, lazySeen);
    const diffs: string[] = [];
    if (setup.retire) {
      // Alive: a live context's ids (a group each at most) or a resident block (a copy per node and tier at most).
      const live = new Set(system);
      for (const c of contexts.values()) for (const b of c) live.add(b);
      const bound = live.size + caps.reduce((sum, [l1, l2]) => sum + l1! + l2!, 0);
      const groups = kv.slotStats().liveGroups;
      if (groups > bound) diffs.push(`${groups} live slot groups for ${live.size} live ids and ${bound - live.size} tier places`);
    }
    for (let n = 0; n < nodes; n++) {
      for (const tier of [1, 2] as const) {
        if (kv.used(n, tier) !== ref.used(n, tier)) diffs.push(`used ${n}/${tier}: ${kv.used(n, tier)} vs ${ref.used(n, tier)}`);
        if (kv.used(n, tier) > caps[n]![tier - 1]!) diffs.push(`used ${n}/${tier} over capacity`);
      }
    }
    if (step % compareEvery === 0 || step === steps - 1) {
      for (const b of seen) {
        for (let n = 0; n < nodes; n++) {
          const count = kv.refCount(b, n);
          if (count !== ref.refCount(b, n)) diffs.push(`count ${b}@${n}: ${count} vs ${ref.refCount(b, n)}`);
          if (count < 0) diffs.push(`negative count ${b}@${n}`);
          for (const tier of [1, 2] as const) {
            if (kv.has(b, n, tier) !== ref.has(b, n, tier)) diffs.push(`residency ${b}@${n}/${tier}`);
          }
        }
      }
      for (const c of contexts.values()) {
        const got = JSON.stringify(plain(kv.match(c)));
        const want = JSON.stringify(plain(ref.match(c)));
        if (got !== want) diffs.push(`match [${c.join(',')}]: ${got} vs ${want}`);
        // Again, with nothing changed: past 31 nodes the walk over the leading row blocks is reused (match-sparse.ts Lead).
        const m = kv.match(c);
        const again = JSON.stringify(plain(m));
        if (again !== want) diffs.push(`match again [${c.join(',')}]: ${again} vs ${want}`);
        // Past 31 nodes: the sparse view (levels and entries, match-result.ts) gives every node the same counts.
        const sp = m.sparse;
        if (sp) {
          for (let n = 0; n < nodes; n++) {
            if (sp.gpu.value(n) !== m.gpu[n] || sp.local.value(n) !== m.local[n]) diffs.push(`sparse match [${c.join(',')}] node ${n}: ${sp.gpu.value(n)}/${sp.local.value(n)} vs ${m.gpu[n]}/${m.local[n]}`);
          }
          // The predicted-TTFT classes off the levels and entries (match-classes.ts), against the per-node arrays.
          for (const d of classDiffs(sp, accepting, m)) diffs.push(`classes [${c.join(',')}]: ${d}`);
        }
      }
    }
    expect(diffs, `seed ${seed} step ${step}`).toEqual([]);
  }
  if (setup.retire && steps >= 1000) {
    // Ids died and their slots were handed out again: far fewer slots than ids (live branches stay level).
    const used = kv.slotStats().highWater;
    expect(retired, `seed ${seed}: nothing retired`).toBeGreaterThan((nextBlock - base) / 2);
    expect(used, `seed ${seed}: ${used} slots for ${nextBlock - base} ids`).toBeLessThan((nextBlock - base) / 2);
  }
  if (setup.hot) {
    // The point of the hot setup: blocks on more than 64 nodes get node-bit rows (holder-rows.ts).
    const rows = (kv as unknown as { tiers: { rows: { liveRows: number } | null } }).tiers.rows;
    expect(rows && rows.liveRows, `seed ${seed}: no block reached a node-bit row`).toBeGreaterThan(0);
  }
  const s = kv.stats();
  expect({
    l1Evictions: s.l1Evictions,
    l2Evictions: s.l2Evictions,
    l1HeldEvictions: s.l1HeldEvictions,
    l2HeldEvictions: s.l2HeldEvictions,
    l1Cleared: s.l1Cleared,
    l2Cleared: s.l2Cleared,
  }).toEqual(ref.stats);
  return lazySeen;
}

/**
 * sparseClasses over `mask` (one array for the run, so the counts per word
 * it keeps per level stamp are reused across matches) checked against the
 * match's arrays, the pass it replaces: every accepting node outside `odd`
 * has a class's pair, every odd node is accepting and has none, each class
 * is the pair of some accepting node, and the classes differ.
 */
function classDiffs(sp: SparseCounts, mask: Int32Array, m: PrefixMatch): string[] {
  const diffs: string[] = [];
  const nodes = m.gpu.length;
  const out: Classes = { gpu: new Int32Array(3), local: new Int32Array(3), count: 0, odd: new Int32Array(0), oddCount: 0 };
  if (!sparseClasses(sp, mask, 3, out)) return diffs;
  const odd = new Set(out.odd.subarray(0, out.oddCount));
  if (odd.size !== out.oddCount) diffs.push('an odd node twice');
  for (let c = 0; c < out.count; c++) for (let d = 0; d < c; d++) if (out.gpu[c] === out.gpu[d] && out.local[c] === out.local[d]) diffs.push(`classes ${c} and ${d} alike`);
  const held = new Int32Array(out.count);
  for (let n = 0; n < nodes; n++) {
    const accepts = (mask[n >>> 5]! & (1 << (n & 31))) !== 0;
    const c = classIndex(out.gpu, out.local, out.count, m.gpu[n]!, m.local[n]!);
    if (accepts && c >= 0) held[c]!++;
    if (odd.has(n) && (!accepts || c >= 0)) diffs.push(`node ${n} odd, accepting ${accepts}, class ${c}`);
    if (!odd.has(n) && accepts && c < 0) diffs.push(`node ${n} (${m.gpu[n]}/${m.local[n]}) in no class`);
  }
  for (let c = 0; c < out.count; c++) if (held[c] === 0) diffs.push(`class ${out.gpu[c]}/${out.local[c]} of no accepting node`);
  return diffs;
}

function sum(xs: readonly LazyCoverage[]): LazyCoverage {
  return xs.reduce((a, x) => ({ shared: a.shared + x.shared, taken: a.taken + x.taken, beside: a.beside + x.beside }), { shared: 0, taken: 0, beside: 0 });
}

function plain(m: PrefixMatch): object {
  return { gpu: [...m.gpu], local: [...m.local], pool: m.pool, poolSource: [...m.poolSource], ideal: m.ideal };
}

describe('randomized against a naive reference model', () => {
  for (const eviction of ['refcount', 'lru'] as const) {
    it(`${eviction}: same residency, counts, matches and stats; invariants hold`, () => {
      for (let seed = 1; seed <= 12; seed++) run(seed, eviction, SMALL);
    });
    it(`${eviction}: also when most operations happen at the same time`, () => {
      for (let seed = 100; seed <= 106; seed++) run(seed, eviction, { ...SMALL, sameTime: 0.9 });
    });
    it(`${eviction}: also with larger tiers and contexts (many runs per queue)`, () => {
      for (let seed = 200; seed <= 202; seed++) {
        run(seed, eviction, { steps: 1500, sameTime: 0.3, maxL1: 90, maxL2: 250, maxContext: 120, compareEvery: 50, checkEvery: 10 });
      }
    });
    it(`${eviction}: also on 6 to 31 nodes (the flat slab table's stride, residency masks up to bit 30)`, () => {
      for (let seed = 600; seed <= 605; seed++) run(seed, eviction, { ...SMALL, nodes: [6, 31], spread: 0.6 });
    });
    it(`${eviction}: also past 31 nodes (copy lists instead of residency masks)`, () => {
      for (let seed = 300; seed <= 308; seed++) run(seed, eviction, { ...SMALL, nodes: [32, 70] });
      run(309, eviction, { steps: 1500, sameTime: 0.3, maxL1: 90, maxL2: 250, maxContext: 120, compareEvery: 50, checkEvery: 10, nodes: [40, 40] });
    }, 300_000);
    it(`${eviction}: also with dead ids retired, their slots reused (ids from 0, past 2^26, past 2^32)`, () => {
      for (let seed = 500; seed <= 505; seed++) run(seed, eviction, { ...SMALL, retire: true, base: [0, 2 ** 26 - 5, 2 ** 32 - 9][seed % 3] });
      const long = { steps: 1500, sameTime: 0.3, maxL1: 20, maxL2: 40, maxContext: 30, compareEvery: 20, checkEvery: 20, retire: true, endChance: 0.15 };
      run(510, eviction, { ...long, base: 2 ** 40 + 3 });
      run(511, eviction, { ...long, nodes: [32, 36] });
    }, 300_000);
    it(`${eviction}: also when every call of a branch goes to another node (whole holdings released and moved)`, () => {
      const seen: LazyCoverage[] = [];
      for (let seed = 700; seed <= 705; seed++) seen.push(run(seed, eviction, { ...SMALL, hop: true }));
      seen.push(run(710, eviction, { steps: 1500, sameTime: 0.3, maxL1: 90, maxL2: 250, maxContext: 120, compareEvery: 50, checkEvery: 10, hop: true }));
      const sparse = [run(711, eviction, { steps: 800, sameTime: 0.3, maxL1: 40, maxL2: 120, maxContext: 60, compareEvery: 40, checkEvery: 20, hop: true, nodes: [32, 40], spread: 0.9 })];
      // Most calls on five nodes, so that holdings share lazy counts there.
      for (let seed = 712; seed <= 713; seed++) sparse.push(run(seed, eviction, { ...SMALL, hop: true, nodes: [32, 36] }));
      // Moves made every state of the lazy counts, with masks and with copy lists.
      for (const [where, s] of [['masks', sum(seen)], ['copy lists', sum(sparse)]] as const) {
        expect(Object.values(s).every((n) => n > 0), `${where}: lazy states ${JSON.stringify(s)}`).toBe(true);
      }
    }, 300_000);
    it(`${eviction}: also with a prefix on more than 64 nodes (node-bit rows, large and small unbroken sets)`, () => {
      for (let seed = 400; seed <= 401; seed++) {
        run(seed, eviction, { steps: 2000, sameTime: 0.3, maxL1: 60, maxL2: 200, maxContext: 60, compareEvery: 50, checkEvery: 100, nodes: [90, 140], spread: 0.9, hot: true });
      }
    }, 300_000);
  }
});
