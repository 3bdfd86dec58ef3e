/**
 * KV directory speed and exactness on bench:sim's own directory calls: cc
 * with 126 agents on 9 nodes, 4P5D, 30 + 60 min, evolving-infra. Each run,
 * in its own process, serves the scenario once with this tree's simulator,
 * recording every call it makes to its KV directory (about 107,000 calls
 * and 20 million blocks), then replays them on a fresh directory, timing
 * only the replays. The directory is most of bench:sim's CPU, so this
 * times it without the rest, and, with --against REV, on exactly the same
 * calls for both trees: their final stats and a hash of every match must
 * agree (a change of representation must not change what the directory
 * does), and the ratio of their speeds is printed.
 *
 * With --census, instead of timing: the same calls replayed once on this
 * tree's directory with its per-block steps observed (census.ts), printing
 * per call kind and per stage the per-block work against what a span
 * representation would need, and the Amdahl bound that gives bench:sim.
 *
 * Run: npm run bench:kv-replay [-- --repeat N] [-- --against REV] [-- --census]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { buildRevision, removeRevision } from './sim/against.js';
import { benchFlags, benchUsageExit, numberFlag } from './args.js';
import { recordCalls } from './kv-replay/record.js';
import { KvCensus } from './kv-replay/census.js';

interface ReplaySample {
  cpu: number[];
  calls: number;
  blocks: number;
  hash: number;
  stats: object;
}

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const repoRoot = resolve(here, '..', '..');
const runner = join(here, 'kv-replay', 'run-once.js');
const ownSim = join(repoRoot, 'dist', 'src', 'sim', 'index.js');
const ownKv = join(repoRoot, 'dist', 'src', 'sim', 'kv', 'directory.js');

const flags = benchFlags('kv-replay', "CPU time of the KV directory replaying bench:sim's directory calls (cc, 126 agents, 9 nodes, 4P5D, 30 + 60 min)", {
  against: { type: 'string', help: "also build this git revision in a temporary clone, replay the same calls on its directory, alternating, and compare outcomes" },
  repeat: { type: 'string', help: 'processes per tree (default 3), each replaying the calls 3 times' },
  census: { type: 'boolean', help: 'no timing: replay once with the per-block steps observed and print per call kind and stage the per-block work against the span operations a span representation would need' },
  'kv-share': { type: 'string', help: "with --census: the directory's share of bench:sim's CPU for the Amdahl bound (default 0.75, --cpu-prof of bench/sim/run-once.js, 2026-12-02)" },
  'base-rate': { type: 'string', help: "with --census: bench:sim's real-time factor to scale the bound from (default 1400, an idle machine, 2026-12-02)" },
});
const repeat = numberFlag('kv-replay', 'repeat', flags.repeat, 3, { integer: true, min: 1 });
const kvShare = numberFlag('kv-replay', 'kv-share', flags['kv-share'], 0.75, { min: 0 });
if (kvShare > 1) benchUsageExit('kv-replay', `--kv-share ${JSON.stringify(flags['kv-share'])}: expected a share <= 1`);
const baseRate = numberFlag('kv-replay', 'base-rate', flags['base-rate'], 1400, { min: 0 });
if (flags.census && flags.against) benchUsageExit('kv-replay', '--census reads this tree only: drop --against');

function runOnce(kv: string): ReplaySample {
  const out = execFileSync(process.execPath, ['--no-node-snapshot', runner, ownSim, kv, '3'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop() ?? '') as ReplaySample;
}
const fastest = (xs: ReplaySample[]): number => Math.min(...xs.flatMap((s) => s.cpu));
const outcome = (s: ReplaySample): string => `hash ${s.hash}, ${JSON.stringify(s.stats)}`;
const describe = (s: ReplaySample): string => `${s.cpu.map((c) => c.toFixed(2)).join(' / ')} CPU s per replay, ${((s.blocks / Math.min(...s.cpu)) / 1e6).toFixed(1)}M blocks/s`;

console.log("bench:kv-replay: bench:sim's KV directory calls (cc 126 agents, 9 nodes, 4P5D, 30+60 min, evolving-infra)");
if (flags.census) {
  const ownSimModule = await import('../src/sim/index.js');
  const { KvDirectory } = await import('../src/sim/kv/directory.js');
  const { calls, options } = recordCalls(ownSimModule, KvDirectory as never);
  const d = new KvDirectory(options as never);
  const census = new KvCensus(d as never);
  for (const call of calls) census.run(call);
  console.log(`${calls.length} calls; outcome stats ${JSON.stringify(d.stats())} (as a plain replay's: the census only reads)`);
  for (const line of census.tally.format(kvShare, baseRate)) console.log(line);
} else if (!flags.against) {
  const samples: ReplaySample[] = [];
  for (let i = 0; i < repeat; i++) {
    const s = runOnce(ownKv);
    samples.push(s);
    console.log(`run ${i + 1}: ${describe(s)}`);
  }
  console.log(`${samples[0]!.calls} calls, ${samples[0]!.blocks} blocks; outcome: ${outcome(samples[0]!)}`);
  console.log(`best: ${fastest(samples).toFixed(3)} CPU s per replay`);
} else {
  console.log(`building ${flags.against} in a temporary clone ...`);
  const dir = buildRevision(repoRoot, flags.against);
  try {
    const theirKv = join(dir, 'dist', 'src', 'sim', 'kv', 'directory.js');
    const mine: ReplaySample[] = [];
    const theirs: ReplaySample[] = [];
    for (let i = 0; i < repeat; i++) {
      const order: [string, ReplaySample[], string][] = [
        ['this tree', mine, ownKv],
        [flags.against, theirs, theirKv],
      ];
      if (i % 2 === 1) order.reverse();
      for (const [label, into, kv] of order) {
        const s = runOnce(kv);
        into.push(s);
        console.log(`run ${i + 1} ${label}: ${describe(s)}`);
      }
    }
    const same = outcome(mine[0]!) === outcome(theirs[0]!);
    console.log(`${mine[0]!.calls} calls, ${mine[0]!.blocks} blocks; outcomes ${same ? 'identical' : 'DIFFER'}:`);
    console.log(`  this tree: ${outcome(mine[0]!)}`);
    if (!same) console.log(`  ${flags.against}: ${outcome(theirs[0]!)}`);
    console.log(`best: this tree ${fastest(mine).toFixed(3)} CPU s, ${flags.against} ${fastest(theirs).toFixed(3)} CPU s per replay; ratio ${(fastest(theirs) / fastest(mine)).toFixed(2)}x`);
    if (!same) process.exitCode = 1;
  } finally {
    removeRevision(dir);
  }
}
