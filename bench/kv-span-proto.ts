/**
 * bench:kv-span-proto: what one span operation costs, measured. The
 * census (bench:kv-replay --census) counts 25x fewer span ops than block
 * ops on bench:sim's directory calls; what that gives depends on k, the
 * cost of a span op in block ops. Here bench:sim's calls are recorded
 * (record.ts) and turned into the operations a span directory would do on
 * residency, eviction order and counts (span-proto/ops.ts), then replayed,
 * alternating in one process, through
 * - the span prototype (span-proto/span-queues.ts, count-ranges.ts), and
 * - the per-block baseline on today's CopyStore and RunQueues (block-engine.ts),
 * and, for scale, the whole KvDirectory on the recorded calls themselves.
 * Both engines must evict the same blocks in the same order (a hash of
 * every eviction) and zero the same counts, or the bench fails.
 *
 * k = (CPU per span op) / (CPU per block op), ops as each engine counts its
 * own work; and the k that, with the census's op counts for the same
 * stages, gives the measured speed-up.
 *
 * Run: npm run bench:kv-span-proto [-- --repeat N] [-- --write-log F | --read-log F --only span|block|none]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { benchFlags, benchUsageExit, numberFlag } from './args.js';
import { recordCalls, type Call } from './kv-replay/record.js';
import { BlockEngine } from './kv-replay/span-proto/block-engine.js';
import { ADD, DETACH, FIT, MOVE, PUSH, WORDS, deriveOps, replayOps, type Engine } from './kv-replay/span-proto/ops.js';
import { SpanEngine } from './kv-replay/span-proto/span-engine.js';

const NAME = 'kv-span-proto';
const flags = benchFlags(NAME, "CPU per span op against per block op: bench:sim's KV directory calls as span and per-block residency, eviction and count operations", {
  repeat: { type: 'string', help: 'timed replays per engine, alternating (default 5)' },
  'write-log': { type: 'string', help: 'also write the derived operations to this file (for --read-log)' },
  'read-log': { type: 'string', help: 'replay operations from this file instead of recording bench:sim (with --only; for valgrind)' },
  only: { type: 'string', help: 'with --read-log: replay once through span, block or none (loading only), print CPU and op counts' },
});
const repeat = numberFlag(NAME, 'repeat', flags.repeat, 5, { integer: true, min: 1 });
if (flags.only !== undefined && !['span', 'block', 'none'].includes(flags.only)) benchUsageExit(NAME, `--only ${JSON.stringify(flags.only)}: expected span, block or none`);
if ((flags.only === undefined) !== (flags['read-log'] === undefined)) benchUsageExit(NAME, '--read-log and --only go together');

interface Setup {
  nodeCount: number;
  l1: number[];
  l2: number[];
}
const cpuOf = (f: () => void): number => {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
};
const engineFor = (kind: 'span' | 'block', s: Setup): SpanEngine | BlockEngine => (kind === 'span' ? new SpanEngine(s.nodeCount, s.l1, s.l2) : new BlockEngine(s.nodeCount, s.l1, s.l2));
const opsOf = (e: SpanEngine | BlockEngine): number => (e instanceof SpanEngine ? e.spanOps : e.blockOps);

if (flags['read-log'] !== undefined) {
  let raw: Buffer;
  try {
    raw = readFileSync(flags['read-log']);
  } catch (error) {
    benchUsageExit(NAME, `--read-log ${JSON.stringify(flags['read-log'])}: ${(error as Error).message}`);
  }
  // A copy: the buffer's offset need not be a multiple of 4.
  const words = new Int32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + (raw.byteLength & ~3)));
  const n = words[0] ?? 0;
  if (n <= 0 || words.length < 1 + 2 * n || (words.length - 1 - 2 * n) % WORDS !== 0) benchUsageExit(NAME, `--read-log ${JSON.stringify(flags['read-log'])}: not a log written by --write-log`);
  const setup = { nodeCount: n, l1: [...words.subarray(1, 1 + n)], l2: [...words.subarray(1 + n, 1 + 2 * n)] };
  const ops = words.slice(1 + 2 * n);
  if (flags.only === 'none') console.log(`${ops.length / WORDS} operations loaded, none replayed`);
  else {
    const e = engineFor(flags.only as 'span' | 'block', setup);
    const cpu = cpuOf(() => replayOps(ops, e));
    console.log(`${flags.only}: ${cpu.toFixed(3)} CPU s, ${opsOf(e)} ops`);
  }
  process.exit(0);
}

console.log("bench:kv-span-proto: bench:sim's KV directory calls (cc 126 agents, 9 nodes, 4P5D, 30+60 min, evolving-infra)");
const sim = await import('../src/sim/index.js');
const { KvDirectory } = await import('../src/sim/kv/directory.js');
const { calls, options } = recordCalls(sim, KvDirectory as never);
const opt = options as { nodeCount: number; l1CapacityBlocks: number[]; l2CapacityBlocks: number[]; eviction: string };
if (opt.eviction !== 'refcount') benchUsageExit(NAME, `the scenario's eviction order is ${opt.eviction}; the derivation assumes refcount in both tiers`);
const setup: Setup = { nodeCount: opt.nodeCount, l1: opt.l1CapacityBlocks, l2: opt.l2CapacityBlocks };
const derived = deriveOps(calls, setup.nodeCount);
const ops = derived.log.ops;
if (flags['write-log'] !== undefined) {
  const head = Int32Array.from([setup.nodeCount, ...setup.l1, ...setup.l2]);
  writeFileSync(flags['write-log'], Buffer.concat([Buffer.from(head.buffer), Buffer.from(ops.buffer, ops.byteOffset, ops.byteLength)]));
}

// The stream, and an untimed pass counting each engine's ops per kind and checking that they agree.
const KINDS = ['detach', 'push', 'fit', 'add', 'move'] as const;
const codes = [DETACH, PUSH, FIT, ADD, MOVE];
const perKind = KINDS.map(() => ({ ops: 0, blocks: 0, span: 0, block: 0 }));
const span = new SpanEngine(setup.nodeCount, setup.l1, setup.l2);
const block = new BlockEngine(setup.nodeCount, setup.l1, setup.l2);
let hashS = 0;
let hashB = 0;
span.queues.onEvict = (nt, first, len) => {
  for (let id = first + len - 1; id >= first; id--) hashS = (Math.imul(hashS, 31) + id * 16 + nt) | 0;
};
block.onEvict = (nt, id) => {
  hashB = (Math.imul(hashB, 31) + id * 16 + nt) | 0;
};
for (let o = 0; o < ops.length; o += WORDS) {
  const one = ops.subarray(o, o + WORDS);
  const k = codes.indexOf(ops[o]!);
  const s0 = span.spanOps;
  const b0 = block.blockOps;
  const e0 = block.evicted;
  replayOps(one, span);
  replayOps(one, block);
  const row = perKind[k]!;
  row.ops++;
  row.blocks += ops[o] === FIT ? block.evicted - e0 : ops[o + 3]!;
  row.span += span.spanOps - s0;
  row.block += block.blockOps - b0;
}
const agree = hashS === hashB && span.queues.evicted === block.evicted && span.counts.zeroed === block.zeroed;
console.log(`${calls.length} calls: ${derived.translated} translated, ${derived.skipped} left out (match, retire), ${derived.repeats} repeated ids dropped; ${ops.length / WORDS} operations`);
console.log('| operation | operations | blocks | block ops | span ops | ratio |');
console.log('|---|---|---|---|---|---|');
for (const [i, r] of perKind.entries()) console.log(`| ${KINDS[i]} | ${r.ops} | ${r.blocks} | ${r.block} | ${r.span} | ${(r.block / Math.max(r.span, 1)).toFixed(1)}x |`);
const B = block.blockOps;
const S = span.spanOps;
console.log(`| total | ${ops.length / WORDS} | | ${B} | ${S} | ${(B / S).toFixed(1)}x |`);
console.log(`span splits ${span.queues.splits} (residency) + ${span.counts.splits} (counts); evicted ${span.queues.evicted} slots (block engine ${block.evicted}), counts reaching 0: ${span.counts.zeroed} blocks; eviction hash ${hashS} / ${hashB}: ${agree ? 'engines agree' : 'ENGINES DIFFER'}`);
if (!agree) {
  process.exitCode = 1;
  process.exit();
}

// For scale: what today's directory spends on the same calls, all of it.
function replayDirectory(): object {
  const d = new KvDirectory(options as never) as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const [name, ...args] of calls as Call[]) d[name]!(...args);
  return d.stats!() as object;
}

// Timed: the whole log through each engine, and without ADD or without MOVE, to split the time by
// stage (residency = detach + push + fit, counts = add, class = move), alternating, plus the directory.
const without = (code: number): Int32Array => {
  const kept = new Int32Array(ops.length);
  let n = 0;
  for (let o = 0; o < ops.length; o += WORDS) if (ops[o] !== code) for (let j = 0; j < WORDS; j++) kept[n++] = ops[o + j]!;
  return kept.slice(0, n);
};
const logs = { all: ops, noAdd: without(ADD), noMove: without(MOVE) };
type Variant = keyof typeof logs;
const times = { span: { all: [], noAdd: [], noMove: [] }, block: { all: [], noAdd: [], noMove: [] }, directory: [] as number[] } as Record<'span' | 'block', Record<Variant, number[]>> & { directory: number[] };
let dirStats: object = {};
for (let r = 0; r < repeat; r++) {
  const line: string[] = [];
  const engines: ('span' | 'block')[] = r % 2 === 0 ? ['span', 'block'] : ['block', 'span'];
  for (const variant of Object.keys(logs) as Variant[]) {
    for (const kind of engines) {
      const e: Engine = engineFor(kind, setup);
      const cpu = cpuOf(() => replayOps(logs[variant], e));
      times[kind][variant].push(cpu);
      line.push(`${kind}${variant === 'all' ? '' : ` ${variant}`} ${cpu.toFixed(3)}`);
    }
  }
  const cpu = cpuOf(() => (dirStats = replayDirectory()));
  times.directory.push(cpu);
  line.push(`directory ${cpu.toFixed(3)}`);
  console.log(`run ${r + 1}: ${line.join(', ')} CPU s`);
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const ts = median(times.span.all);
const tb = median(times.block.all);
const td = median(times.directory);
console.log(`today's directory on the same calls: ${JSON.stringify(dirStats)}`);
console.log(`median CPU s: span ${ts.toFixed(3)}, block ${tb.toFixed(3)}, whole directory ${td.toFixed(3)} (best ${Math.min(...times.span.all).toFixed(3)} / ${Math.min(...times.block.all).toFixed(3)} / ${Math.min(...times.directory).toFixed(3)})`);
const k = ts / S / (tb / B);
console.log(`span ops/s ${(S / ts / 1e6).toFixed(2)}M (${((ts / S) * 1e9).toFixed(1)} ns each), block ops/s ${(B / tb / 1e6).toFixed(1)}M (${((tb / B) * 1e9).toFixed(1)} ns each); speed-up block / span ${(tb / ts).toFixed(2)}x`);
console.log(`k (own op counts) = ${k.toFixed(2)}`);
// The census's op counts for the stages the prototype covers (place, detach, counts, evict, class; docs/benchmarks.md).
const CENSUS_BLOCK = 10351422 + 10351422 + 20283838 + 7585754 + 13879764;
const CENSUS_SPAN = 200910 + 122050 + 1577044 + 181533 + 152736;
const kCensus = CENSUS_BLOCK / CENSUS_SPAN / (tb / ts);
console.log(`k (census op counts for those stages, ${(CENSUS_BLOCK / CENSUS_SPAN).toFixed(1)}x fewer) = ${kCensus.toFixed(2)}`);

// By stage: the time an engine saves without a stage's operations is that stage's.
const stage = (kind: 'span' | 'block'): { res: number; counts: number; cls: number } => {
  const all = median(times[kind].all);
  const counts = Math.max(all - median(times[kind].noAdd), 0);
  const cls = Math.max(all - median(times[kind].noMove), 0);
  return { res: all - counts - cls, counts, cls };
};
const st = stage('span');
const sb = stage('block');
const opsBy = (ks: number[]): { b: number; s: number } => ({ b: ks.reduce((x, i) => x + perKind[i]!.block, 0), s: ks.reduce((x, i) => x + perKind[i]!.span, 0) });
const groups = [
  ['residency (detach, push, fit)', st.res, sb.res, opsBy([0, 1, 2])],
  ['counts (add)', st.counts, sb.counts, opsBy([3])],
  ['class (move)', st.cls, sb.cls, opsBy([4])],
] as const;
console.log('| stage | span CPU s | block CPU s | speed-up | span ops | block ops | k |');
console.log('|---|---|---|---|---|---|---|');
const speedup: number[] = [];
for (const [label, a, b, o] of groups) {
  speedup.push(b / a);
  console.log(`| ${label} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(b / a).toFixed(2)}x | ${o.s} | ${o.b} | ${((a / o.s) / (b / o.b)).toFixed(2)} |`);
}
// The census's bound (docs/benchmarks.md): eight stages at their profile shares / reductions, 14.2 % other directory, 25 % outside.
const stageSum = 17.2 / 51.5 + 8.7 / 84.8 + 11.3 / 12.9 + 9.8 / 41.8 + 3.7 / 90.9 + 2.9 / 19.8 + 2.6 / 10.7 + 4.6 / 64.7;
for (const [label, kk] of [['own', k], ['census', kCensus]] as const) {
  const low = 1 / (0.25 + 0.142 + (kk * stageSum) / 100);
  const high = 1 / (0.25 + (0.142 * kk) / 25 + (kk * stageSum) / 100);
  console.log(`census bound at k = ${kk.toFixed(2)} (${label} counts): bench:sim ${low.toFixed(2)}-${high.toFixed(2)}x, ${Math.round(1400 * low)}-${Math.round(1400 * high)}x real time from 1,400x`);
}
// Measured instead: the covered stages' profile shares divided by their measured speed-ups; the
// uncovered ones (diff 2.9 %, match 2.6 %, lookup 4.6 %) at the census's reductions with k = 1 (their best case).
const covered = (17.2 + 8.7 + 9.8) / speedup[0]! + 11.3 / speedup[1]! + 3.7 / speedup[2]!;
const uncovered = 2.9 / 19.8 + 2.6 / 10.7 + 4.6 / 64.7;
const low = 1 / (0.25 + 0.142 + (covered + uncovered) / 100);
const high = 1 / (0.25 + 0.142 / (tb / ts) + (covered + uncovered) / 100);
console.log(`measured stage speed-ups on the profile's shares: bench:sim ${low.toFixed(2)}-${high.toFixed(2)}x, ${Math.round(1400 * low)}-${Math.round(1400 * high)}x real time from 1,400x (other directory 14.2 % kept, or cut by the overall ${(tb / ts).toFixed(2)}x)`);
