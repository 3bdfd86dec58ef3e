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
 * Run: npm run bench:kv-replay [-- --repeat N] [-- --against REV]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { buildRevision, removeRevision } from './sim/against.js';
import { benchFlags, numberFlag } from './args.js';

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
});
const repeat = numberFlag('kv-replay', 'repeat', flags.repeat, 3, { integer: true, min: 1 });

function runOnce(kv: string): ReplaySample {
  const out = execFileSync(process.execPath, ['--no-node-snapshot', runner, ownSim, kv, '3'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop() ?? '') as ReplaySample;
}
const fastest = (xs: ReplaySample[]): number => Math.min(...xs.flatMap((s) => s.cpu));
const outcome = (s: ReplaySample): string => `hash ${s.hash}, ${JSON.stringify(s.stats)}`;
const describe = (s: ReplaySample): string => `${s.cpu.map((c) => c.toFixed(2)).join(' / ')} CPU s per replay, ${((s.blocks / Math.min(...s.cpu)) / 1e6).toFixed(1)}M blocks/s`;

console.log("bench:kv-replay: bench:sim's KV directory calls (cc 126 agents, 9 nodes, 4P5D, 30+60 min, evolving-infra)");
if (!flags.against) {
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
