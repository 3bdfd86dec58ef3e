/**
 * KV directory throughput on a synthetic agent workload shaped like the `cc`
 * preset on 9 GB300 nodes (4P5D, GLM-5.2 capacities): ~130 live branches with
 * contexts of ~50-400 blocks that grow a few blocks per call, compactions,
 * forks and fresh sub-agents, prefill mostly sticky to a node, decode spread
 * over the decode nodes. One "block operation" is one block passed to match,
 * admitPrefill, admitDecode or addProduced. The workload is generated before
 * timing; each order runs once to warm up, then the best of three is kept.
 *
 *   npx tsc -p . && node dist/bench/kv.js
 */
import { performance } from 'node:perf_hooks';
import { Rng } from '../src/common/rng.js';
import { KvDirectory, type EvictionOrder } from '../src/sim/kv/index.js';

interface Call {
  branch: number;
  prefill: number;
  decode: number;
  blocks: number[];
  produced: number[];
  /** The branch ends after this call. */
  last: boolean;
}

const NODES = 9;
const PREFILL_NODES = 4;
const CALLS = 30_000;
const BRANCHES = 130;
/** GB300 with GLM-5.2 KV: 250 GB of GPU and 1 TB of host memory per node, 512-token blocks. */
const L1_BLOCKS = 9688;
const L2_BLOCKS = 38752;

function workload(seed: number): Call[] {
  const rng = new Rng(seed);
  let nextBlock = 0;
  const fresh = (k: number): number[] => Array.from({ length: k }, () => nextBlock++);
  const system = fresh(12); // a system prompt every agent shares
  const contexts = new Map<number, number[]>();
  const stickyNode = new Map<number, number>();
  let nextBranch = 0;
  const open = (base: number[]): number => {
    const b = nextBranch++;
    contexts.set(b, [...base, ...fresh(rng.int(30, 150))]);
    stickyNode.set(b, rng.int(0, PREFILL_NODES - 1));
    return b;
  };
  const live: number[] = [];
  for (let i = 0; i < BRANCHES; i++) live.push(open(system));
  const calls: Call[] = [];
  for (let i = 0; i < CALLS; i++) {
    const slot = rng.int(0, live.length - 1);
    const branch = live[slot]!;
    let ctx = contexts.get(branch)!;
    if (ctx.length > 400) ctx = [...ctx.slice(0, 12), ...fresh(rng.int(20, 40))]; // compaction
    else ctx = [...ctx, ...fresh(rng.int(1, 6))]; // tool result appended
    const produced = rng.chance(0.6) ? fresh(rng.int(1, 2)) : [];
    contexts.set(branch, [...ctx, ...produced]);
    // Prefill routing mostly follows the cache; decode goes to the least loaded node.
    if (rng.chance(0.3)) stickyNode.set(branch, rng.int(0, PREFILL_NODES - 1));
    const last = rng.chance(0.04);
    calls.push({ branch, prefill: stickyNode.get(branch)!, decode: rng.int(PREFILL_NODES, NODES - 1), blocks: ctx, produced, last });
    if (last) {
      contexts.delete(branch);
      // Replaced by a fork of another branch or a fresh sub-agent.
      const parent = live[rng.int(0, live.length - 1)]!;
      live[slot] = open(parent !== branch && rng.chance(0.5) ? contexts.get(parent)! : system);
    }
  }
  return calls;
}

function run(calls: Call[], eviction: EvictionOrder): { ops: number; wall: number; cpu: number; kv: KvDirectory } {
  const kv = new KvDirectory({
    nodeCount: NODES,
    l1CapacityBlocks: Array(NODES).fill(L1_BLOCKS),
    l2CapacityBlocks: Array(NODES).fill(L2_BLOCKS),
    eviction,
  });
  let ops = 0;
  let now = 0;
  let sink = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  for (const c of calls) {
    now += 0.05;
    sink += kv.match(c.blocks).pool;
    kv.admitPrefill(c.prefill, c.branch, c.blocks, now);
    kv.admitDecode(c.decode, c.branch, c.blocks, now);
    if (c.produced.length > 0) kv.addProduced(c.decode, c.branch, c.produced, now);
    ops += 3 * c.blocks.length + c.produced.length;
    if (c.last) kv.endBranch(c.branch);
  }
  const wall = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (sink < 0) console.log(sink);
  return { ops, wall, cpu: (cpu.user + cpu.system) / 1e6, kv };
}

/** Seconds for 100M iterations of a trivial typed-array loop: how fast this machine is today. */
function calibrate(): number {
  const a = new Int32Array(1 << 16).map((_, i) => i * 7);
  let s = 0;
  const start = performance.now();
  for (let r = 0; r < 1526; r++) for (let i = 0; i < a.length; i++) s = (s + (a[i]! ^ r)) | 0;
  const seconds = (performance.now() - start) / 1000;
  return s === 0.5 ? 0 : seconds;
}

const calls = workload(1);
const meanBlocks = calls.reduce((s, c) => s + c.blocks.length, 0) / calls.length;
console.log(`KV directory: ${calls.length} calls, ${meanBlocks.toFixed(0)} blocks each on average, ${NODES} nodes (${PREFILL_NODES}P${NODES - PREFILL_NODES}D)`);
const orders = (process.argv[2] ? [process.argv[2]] : ['refcount', 'lru']) as EvictionOrder[];
for (const eviction of orders) {
  run(calls, eviction);
  const best = [0, 1, 2].map(() => run(calls, eviction)).reduce((a, b) => (a.wall < b.wall ? a : b));
  const s = best.kv.stats();
  const inserts = s.l1Inserts + s.l2Inserts;
  console.log(
    `${eviction.padEnd(8)} ${(best.ops / best.wall / 1e6).toFixed(1)} M block-ops/s ` +
      `(${(best.ops / 1e6).toFixed(1)} M in ${best.wall.toFixed(2)} s wall, ${best.cpu.toFixed(2)} s CPU); ` +
      `${((100 * inserts) / (2 * (best.ops - calls.reduce((n, c) => n + c.blocks.length, 0)))).toFixed(0)}% of placements insert, ` +
      `evictions L1 ${s.l1Evictions} L2 ${s.l2Evictions}`,
  );
}
console.log(`calibration: 100M iterations of a trivial typed-array loop take ${calibrate().toFixed(2)} s on this machine (to compare figures across machines)`);
