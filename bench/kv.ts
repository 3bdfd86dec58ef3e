/**
 * KV directory throughput on a synthetic agent workload: block operations per
 * second (each block passed to match, admitPrefill, admitDecode or
 * addProduced counts as one). The workload is generated before timing.
 *
 *   npx tsc -p . && node dist/bench/kv.js
 */
import { performance } from 'node:perf_hooks';
import { Rng } from '../src/common/rng.js';
import { KvDirectory, type EvictionOrder } from '../src/sim/kv/index.js';

interface Req {
  branch: number;
  prefill: number;
  decode: number;
  blocks: number[];
  produced: number[];
  /** The branch ends after this request. */
  last: boolean;
}

const NODES = 9;
const PREFILL_NODES = 4;
const REQUESTS = 30_000;
const BRANCHES = 400;

function workload(seed: number): Req[] {
  const rng = new Rng(seed);
  let nextBlock = 0;
  const fresh = (k: number): number[] => Array.from({ length: k }, () => nextBlock++);
  const system = fresh(16); // a system prompt every agent shares
  const contexts = new Map<number, number[]>();
  let nextBranch = 0;
  const open = (base: number[]): number => {
    const b = nextBranch++;
    contexts.set(b, [...base, ...fresh(rng.int(20, 120))]);
    return b;
  };
  const live: number[] = [];
  for (let i = 0; i < BRANCHES; i++) live.push(open(system));
  const out: Req[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const slot = rng.int(0, live.length - 1);
    const branch = live[slot]!;
    let ctx = contexts.get(branch)!;
    if (ctx.length > 300) ctx = [...ctx.slice(0, 16), ...fresh(rng.int(10, 30))]; // compaction
    else ctx = [...ctx, ...fresh(rng.int(1, 6))]; // tool result appended
    const produced = fresh(rng.int(0, 2));
    contexts.set(branch, [...ctx, ...produced]);
    const last = rng.chance(0.02);
    out.push({ branch, prefill: rng.int(0, PREFILL_NODES - 1), decode: rng.int(PREFILL_NODES, NODES - 1), blocks: ctx, produced, last });
    if (last) {
      contexts.delete(branch);
      // Replace it by a fork of another branch or a fresh sub-agent.
      const parent = rng.pick(live);
      live[slot] = open(rng.chance(0.5) && parent !== branch ? contexts.get(parent)! : system);
    }
  }
  return out;
}

function run(reqs: Req[], eviction: EvictionOrder): { ops: number; seconds: number; cpuSeconds: number; kv: KvDirectory } {
  const kv = new KvDirectory({
    nodeCount: NODES,
    // Tight enough that eviction runs all the time.
    l1CapacityBlocks: Array(NODES).fill(12_000),
    l2CapacityBlocks: Array(NODES).fill(40_000),
    eviction,
  });
  let ops = 0;
  let now = 0;
  let sink = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (const r of reqs) {
    now += 0.05;
    const m = kv.match(r.blocks);
    sink += m.pool + m.gpu[r.prefill]!;
    kv.admitPrefill(r.prefill, r.branch, r.blocks, now);
    kv.admitDecode(r.decode, r.branch, r.blocks, now);
    kv.addProduced(r.decode, r.branch, r.produced, now);
    ops += 3 * r.blocks.length + r.produced.length;
    if (r.last) kv.endBranch(r.branch);
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  if (sink < 0) console.log(sink);
  return { ops, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, kv };
}

const reqs = workload(1);
const meanBlocks = reqs.reduce((s, r) => s + r.blocks.length, 0) / reqs.length;
console.log(`KV directory: ${reqs.length} requests, ${meanBlocks.toFixed(0)} blocks each on average, ${NODES} nodes`);
for (const eviction of (process.argv[2] ? [process.argv[2]] : ['refcount', 'lru']) as EvictionOrder[]) {
  run(reqs, eviction); // warm-up
  const { ops, seconds, cpuSeconds, kv } = run(reqs, eviction);
  const s = kv.stats();
  console.log(
    `${eviction.padEnd(8)} ${(ops / seconds / 1e6).toFixed(1)} M block-ops/s wall, ${(ops / cpuSeconds / 1e6).toFixed(1)} M/s CPU ` +
      `(${(ops / 1e6).toFixed(1)} M ops in ${seconds.toFixed(3)} s; ` +
      `evictions L1 ${s.l1Evictions} L2 ${s.l2Evictions}, of counted copies L1 ${s.l1HeldEvictions} L2 ${s.l2HeldEvictions})`,
  );
}
