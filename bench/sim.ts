/**
 * Simulator speed: cc with 126 agents on 9 nodes, 30 min warm-up + 60 min
 * scored, evolving-infra mechanics, on one core. Prints simulated seconds per
 * wall second and per CPU second, events per second and peak memory.
 * Target: >= 5,000x real time with under 1 GB of memory.
 *
 * Run: npm run bench:sim [-- --repeat N] [-- --against REV]
 * With --against REV, REV is built in a temporary clone and both trees run
 * alternately, each run in its own process, and the ratio of their speeds is
 * printed: absolute times on a shared machine vary by 30%, ratios taken in
 * one interleaved run much less. The ratio uses process CPU time (what the
 * run itself consumed, not what other processes took from it); wall-time
 * figures are printed beside it.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRevision, removeRevision, runOnce, type RunSample } from './sim/against.js';
import { benchFlags, numberFlag } from './args.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const repoRoot = resolve(here, '..', '..');
const runner = join(here, 'sim', 'run-once.js');
const ownSim = join(repoRoot, 'dist', 'src', 'sim', 'index.js');

const flags = benchFlags('sim', 'real-time factor, events/s and peak memory of cc, 126 agents, 9 nodes, 4P5D, 30 + 60 min', {
  against: { type: 'string', help: 'also build this git revision in a temporary clone and alternate runs with it' },
  repeat: { type: 'string', help: 'runs per tree (default 3)' },
});
const against = flags.against;
const repeat = numberFlag('sim', 'repeat', flags.repeat, 3, { integer: true, min: 1 });

const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const describe = (s: RunSample): string =>
  `${s.simSeconds} sim s: ${(s.simSeconds / s.cpu).toFixed(0)}x per CPU s (${s.cpu.toFixed(2)} s), ` +
  `${(s.simSeconds / s.wall).toFixed(0)}x per wall s (${s.wall.toFixed(2)} s), ${(s.events / s.cpu / 1e3).toFixed(0)}k events/CPU s, ${s.requests} requests, ${mb(s.maxRss)}`;
const best = (xs: RunSample[], by: 'cpu' | 'wall'): RunSample => xs.reduce((a, b) => (a[by] < b[by] ? a : b));

console.log('bench:sim cc 126 agents, 9 nodes, 4P5D, 30+60 min, evolving-infra');
if (!against) {
  const samples: RunSample[] = [];
  for (let i = 0; i < repeat; i++) {
    const s = runOnce(runner, ownSim);
    samples.push(s);
    console.log(`run ${i + 1}: ${describe(s)}`);
  }
  const b = best(samples, 'cpu');
  const speed = b.simSeconds / b.cpu;
  const peak = Math.max(...samples.map((s) => s.maxRss));
  console.log(`speed (best of ${repeat}): ${speed.toFixed(0)}x real time per CPU second, ${(b.simSeconds / best(samples, 'wall').wall).toFixed(0)}x per wall second; ${(b.events / b.cpu / 1e3).toFixed(0)}k events/s`);
  console.log(`peak RSS: ${mb(peak)}`);
  console.log(`target >= 5000x real time and < 1024 MB: ${speed >= 5000 && peak < 2 ** 30 ? 'met' : 'NOT met'}`);
} else {
  console.log(`building ${against} in a temporary clone ...`);
  const dir = buildRevision(repoRoot, against);
  try {
    const theirSim = join(dir, 'dist', 'src', 'sim', 'index.js');
    const mine: RunSample[] = [];
    const theirs: RunSample[] = [];
    for (let i = 0; i < repeat; i++) {
      // Alternate which goes first, so a load change hits both alike.
      const order: [string, RunSample[], string][] = [
        ['this tree', mine, ownSim],
        [against, theirs, theirSim],
      ];
      if (i % 2 === 1) order.reverse();
      for (const [label, into, sim] of order) {
        const s = runOnce(runner, sim);
        into.push(s);
        console.log(`run ${i + 1} ${label}: ${describe(s)}`);
      }
    }
    if (mine[0]!.events !== theirs[0]!.events) console.log(`note: event counts differ (${mine[0]!.events} vs ${theirs[0]!.events}): the two trees simulate differently`);
    const cpuMine = best(mine, 'cpu');
    const cpuTheirs = best(theirs, 'cpu');
    const wallMine = best(mine, 'wall');
    const wallTheirs = best(theirs, 'wall');
    console.log(`\nbest of ${repeat}, interleaved:`);
    console.log(`  this tree: ${(cpuMine.simSeconds / cpuMine.cpu).toFixed(0)}x real time per CPU s, ${(wallMine.simSeconds / wallMine.wall).toFixed(0)}x per wall s, peak ${mb(Math.max(...mine.map((s) => s.maxRss)))}`);
    console.log(`  ${against}: ${(cpuTheirs.simSeconds / cpuTheirs.cpu).toFixed(0)}x real time per CPU s, ${(wallTheirs.simSeconds / wallTheirs.wall).toFixed(0)}x per wall s, peak ${mb(Math.max(...theirs.map((s) => s.maxRss)))}`);
    // Speed ratio per simulated second, so different run lengths still compare.
    const ratio = (a: RunSample, b: RunSample, by: 'cpu' | 'wall'): number => a.simSeconds / a[by] / (b.simSeconds / b[by]);
    console.log(`  ratio this tree / ${against}: ${ratio(cpuMine, cpuTheirs, 'cpu').toFixed(2)}x by CPU time, ${ratio(wallMine, wallTheirs, 'wall').toFixed(2)}x by wall time`);
  } finally {
    removeRevision(dir);
  }
}
