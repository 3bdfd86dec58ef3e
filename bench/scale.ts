/**
 * Simulator scale: cc on 9, 36, 144, 576 and 1,024 nodes, agents in
 * proportion (126 per 9 nodes), split in proportion (4P5D), evolving-infra
 * mechanics. Prints events per CPU second and simulated seconds per CPU
 * second (real-time factor) per size, each in its own process. The larger
 * clusters simulate shorter windows (printed) so that each run takes a
 * similar number of events. Target: events/s at 1,024 nodes at least half of
 * that at 9.
 * Run: npm run bench:scale [-- --sizes 9,36] [-- --repeat N] [-- --against REV]
 * With --repeat N, the run of least CPU time of N is kept per size (the
 * median events/s is printed beside it). With --against REV, REV is built in
 * a temporary clone and, per size, its runs alternate with this tree's, each
 * in its own process; the table then has a row per tree and size, and the
 * 1,024 / 9 ratio and the speed ratio per size are printed for both.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRevision, removeRevision, runOnce, type RunSample } from './sim/against.js';
import { benchFlags, benchUsageExit, numberFlag } from './args.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const runner = join(here, 'sim', 'run-once.js');
const repoRoot = resolve(here, '..', '..');
const ownSim = join(repoRoot, 'dist', 'src', 'sim', 'index.js');

/** Warm-up and scored minutes per size: about the same event count for each. */
const WINDOWS: Record<number, [number, number]> = { 9: [30, 60], 36: [10, 20], 144: [3, 6], 576: [1, 2], 1024: [1, 2] };

const flags = benchFlags('scale', 'events/s and real-time factor of cc on 9 to 1,024 nodes, agents in proportion', {
  sizes: { type: 'string', help: `comma-separated node counts among ${Object.keys(WINDOWS).join(', ')} (default all)` },
  repeat: { type: 'string', help: 'runs per size and tree (default 1)' },
  against: { type: 'string', help: 'also build this git revision in a temporary clone and alternate runs with it' },
});
const sizes = (flags.sizes ?? '9,36,144,576,1024').split(',').map(Number);
const repeat = numberFlag('scale', 'repeat', flags.repeat, 1, { integer: true, min: 1 });
for (const n of sizes) if (!WINDOWS[n]) benchUsageExit('scale', `--sizes: ${n} is not one of ${Object.keys(WINDOWS).join(', ')}`);

const against = flags.against;

interface Row {
  tree: string;
  nodes: number;
  agents: number;
  split: string;
  window: string;
  s: RunSample;
  /** Median events per CPU second over the repeats. */
  median: number;
}
const eps = (s: RunSample): number => s.events / s.cpu;
const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 === 1 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};

const trees: [string, string][] = [['this tree', ownSim]];
let built: string | undefined;
if (against) {
  console.log(`building ${against} in a temporary clone ...`);
  built = buildRevision(repoRoot, against);
  trees.push([against, join(built, 'dist', 'src', 'sim', 'index.js')]);
}
const rows: Row[] = [];
try {
  for (const nodes of sizes) {
    const agents = Math.round((126 * nodes) / 9);
    const p = Math.round((4 * nodes) / 9);
    const split = `${p}P${nodes - p}D`;
    const [warmupMinutes, minutes] = WINDOWS[nodes]!;
    const scenario = { workload: 'cc', agents, nodes, split, warmupMinutes, minutes, seed: 1 };
    const samples = trees.map((): RunSample[] => []);
    for (let i = 0; i < repeat; i++) {
      // Alternate which tree goes first, so a load change hits both alike.
      const order = trees.map((_, t) => t);
      if (i % 2 === 1) order.reverse();
      for (const t of order) samples[t]!.push(runOnce(runner, trees[t]![1], scenario));
    }
    trees.forEach(([tree], t) => {
      const best = samples[t]!.reduce((a, b) => (b.cpu < a.cpu ? b : a));
      const row = { tree, nodes, agents, split, window: `${warmupMinutes}+${minutes} min`, s: best, median: median(samples[t]!.map(eps)) };
      rows.push(row);
      console.log(`${nodes} nodes${against ? ` (${tree})` : ''}: ${format(row)}`);
    });
  }
} finally {
  if (built) removeRevision(built);
}

function format(r: Row): string {
  const { s } = r;
  return `${r.agents} agents, ${r.split}, ${r.window}: ${s.events} events, ${(eps(s) / 1e3).toFixed(1)}k events/s (median ${(r.median / 1e3).toFixed(1)}k), ${(s.simSeconds / s.cpu).toFixed(1)}x real time (CPU ${s.cpu.toFixed(1)} s, wall ${s.wall.toFixed(1)} s), peak ${(s.maxRss / 2 ** 20).toFixed(0)} MB`;
}

console.log(`\n|${against ? ' tree |' : ''} nodes | agents | split | window (warm-up + scored) | events | events/s (CPU) | real-time factor (CPU) | peak RSS |`);
console.log(`|${against ? '---|' : ''}---:|---:|---|---|---:|---:|---:|---:|`);
for (const r of rows) {
  const { s } = r;
  console.log(
    `|${against ? ` ${r.tree} |` : ''} ${r.nodes} | ${r.agents} | ${r.split} | ${r.window} | ${s.events} | ${(eps(s) / 1e3).toFixed(1)}k | ${(s.simSeconds / s.cpu).toFixed(1)}x | ${(s.maxRss / 2 ** 20).toFixed(0)} MB |`,
  );
}
console.log('');
for (const [tree] of trees) {
  const mine = rows.filter((r) => r.tree === tree);
  const first = mine.find((r) => r.nodes === 9);
  const last = mine.find((r) => r.nodes === 1024);
  if (first && last) {
    const ratio = eps(last.s) / eps(first.s);
    const byMedian = last.median / first.median;
    console.log(`${against ? `${tree}: ` : ''}events/s at 1,024 nodes / at 9: ${ratio.toFixed(2)} (medians: ${byMedian.toFixed(2)}; target >= 0.5: ${ratio >= 0.5 ? 'met' : 'NOT met'})`);
  }
}
if (against) {
  for (const nodes of sizes) {
    const [mine, theirs] = trees.map(([tree]) => rows.find((r) => r.tree === tree && r.nodes === nodes)!);
    console.log(`${nodes} nodes: events/s this tree / ${against}: ${(eps(mine!.s) / eps(theirs!.s)).toFixed(2)}x (medians: ${(mine!.median / theirs!.median).toFixed(2)}x)`);
  }
}
