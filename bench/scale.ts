/**
 * Simulator scale: cc on 9, 36, 144, 576 and 1,024 nodes, agents in
 * proportion (126 per 9 nodes), split in proportion (4P5D), evolving-infra
 * mechanics. Prints events per CPU second and simulated seconds per CPU
 * second (real-time factor) per size, each in its own process. The larger
 * clusters simulate shorter windows (printed) so that each run takes a
 * similar number of events. Target (issue 13): events/s at 1,024 nodes at
 * least half of that at 9, as this bench measures it: the whole run.
 *
 * A short window at 1,024 nodes is mostly its start-up burst (14,336 agents'
 * first, uncached contexts: fewer events per request than later), so the
 * whole-run ratio mixes the start-up with the per-event cost of a large
 * cluster. With --steady, each size also runs with its window doubled
 * (warm-up and scored minutes x2, same seed and scenario), and the
 * difference of the two runs (bench/sim/steady.ts) gives events per CPU
 * second, CPU per request and events per request past the start-up, at
 * every size the same way; both 1,024 / 9 ratios are printed, labelled.
 *
 * Run: npm run bench:scale [-- --sizes 9,36] [-- --repeat N] [-- --steady] [-- --against REV]
 * With --repeat N, the run of least CPU time of N is kept per size and
 * window length (the median events/s is printed beside it; the differenced
 * figures are those of the two least-CPU runs). With --against REV, REV is
 * built in a temporary clone and, per size, its runs alternate with this
 * tree's, each in its own process (with --steady, both trees run both
 * lengths); the table then has a row per tree and size, and the 1,024 / 9
 * ratios and the speed ratio per size are printed for both.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRevision, removeRevision, runOnce, type RunSample } from './sim/against.js';
import { benchFlags, benchUsageExit, numberFlag } from './args.js';
import { doubled, figures, leastCpu, median, steadyDifference, verdict, type SteadyResult } from './sim/steady.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const runner = join(here, 'sim', 'run-once.js');
const repoRoot = resolve(here, '..', '..');
const ownSim = join(repoRoot, 'dist', 'src', 'sim', 'index.js');

/** Warm-up and scored minutes per size: about the same event count for each. */
const WINDOWS: Record<number, [number, number]> = { 9: [30, 60], 36: [10, 20], 144: [3, 6], 576: [1, 2], 1024: [1, 2] };

const flags = benchFlags('scale', 'events/s and real-time factor of cc on 9 to 1,024 nodes, agents in proportion', {
  sizes: { type: 'string', help: `comma-separated node counts among ${Object.keys(WINDOWS).join(', ')} (default all)` },
  repeat: { type: 'string', help: 'runs per size, window length and tree, the least-CPU run kept (default 1)' },
  steady: {
    type: 'boolean',
    help: 'also run each size with its window doubled and print the difference of the two runs: events/s, CPU us and events per request past the start-up (off by default: it costs about 4x the whole-run bench)',
  },
  against: { type: 'string', help: 'also build this git revision in a temporary clone and alternate runs with it' },
});
const sizes = (flags.sizes ?? '9,36,144,576,1024').split(',').map(Number);
const repeat = numberFlag('scale', 'repeat', flags.repeat, 1, { integer: true, min: 1 });
for (const n of sizes) if (!WINDOWS[n]) benchUsageExit('scale', `--sizes: ${n} is not one of ${Object.keys(WINDOWS).join(', ')}`);
const steady = flags.steady;
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
  /** With --steady: the doubled window, its least-CPU run, and the difference. */
  long?: { window: string; s: RunSample; steady: SteadyResult; median: SteadyResult };
}
const eps = (s: RunSample): number => s.events / s.cpu;
const k = (x: number): string => `${(x / 1e3).toFixed(1)}k`;
const minutes = ([w, m]: readonly [number, number]): string => `${w}+${m} min`;

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
    const windows: [number, number][] = [WINDOWS[nodes]!, ...(steady ? [doubled(WINDOWS[nodes]!)] : [])];
    // samples[tree][window]
    const samples = trees.map(() => windows.map((): RunSample[] => []));
    for (let i = 0; i < repeat; i++) {
      // Alternate which tree goes first, so a load change hits both alike.
      const order = trees.map((_, t) => t);
      if (i % 2 === 1) order.reverse();
      for (const t of order) {
        windows.forEach(([warmupMinutes, minutes], w) => {
          const scenario = { workload: 'cc', agents, nodes, split, warmupMinutes, minutes, seed: 1 };
          samples[t]![w]!.push(runOnce(runner, trees[t]![1], scenario));
        });
      }
    }
    trees.forEach(([tree], t) => {
      const [short, long] = samples[t]!;
      const best = leastCpu(short!);
      const row: Row = { tree, nodes, agents, split, window: minutes(windows[0]!), s: best, median: median(short!.map(eps)) };
      if (long) {
        const bestLong = leastCpu(long);
        // Same seed, same events: the median run differs from the best only in its CPU time.
        const mid = (xs: RunSample[]): RunSample => ({ ...xs[0]!, cpu: median(xs.map((x) => x.cpu)) });
        row.long = { window: minutes(windows[1]!), s: bestLong, steady: steadyDifference(best, bestLong), median: steadyDifference(mid(short!), mid(long)) };
      }
      rows.push(row);
      const who = against ? ` (${tree})` : '';
      console.log(`${nodes} nodes${who}: ${format(row, row.window, row.s, row.median)}`);
      if (row.long) {
        console.log(`${nodes} nodes${who}: ${format(row, row.long.window, row.long.s, median(long!.map(eps)))}`);
        console.log(`${nodes} nodes${who}, past the start-up (${row.long.window} minus ${row.window}): ${formatSteady(row.long.steady, row.long.median)}`);
      }
    });
  }
} finally {
  if (built) removeRevision(built);
}

function format(r: Row, window: string, s: RunSample, med: number): string {
  const f = figures(s);
  return (
    `${r.agents} agents, ${r.split}, ${window}: ${s.events} events, ${s.requests} requests, ${k(f.eventsPerCpuSecond)} events/s (median ${k(med)}), ` +
    `${f.eventsPerRequest.toFixed(2)} events and ${f.cpuUsPerRequest.toFixed(0)} us CPU per request, ${f.realTimeFactor.toFixed(1)}x real time ` +
    `(CPU ${s.cpu.toFixed(1)} s, wall ${s.wall.toFixed(1)} s), peak ${(s.maxRss / 2 ** 20).toFixed(0)} MB`
  );
}

function formatSteady(d: SteadyResult, med: SteadyResult): string {
  if (!d.ok) return `no figure: ${d.reason}`;
  const f = d.figures;
  return (
    `${d.delta.events} events, ${d.delta.requests} requests, ${d.delta.cpu.toFixed(2)} s CPU, ${d.delta.simSeconds} sim s: ` +
    `${k(f.eventsPerCpuSecond)} events/s${med.ok && repeat > 1 ? ` (from the median CPU times ${k(med.figures.eventsPerCpuSecond)})` : ''}, ` +
    `${f.eventsPerRequest.toFixed(2)} events and ${f.cpuUsPerRequest.toFixed(0)} us CPU per request, ${f.realTimeFactor.toFixed(1)}x real time`
  );
}

const treeCol = (r: Row): string => (against ? ` ${r.tree} |` : '');
console.log('\nWhole run (the figure issue 13 names):');
console.log(`\n|${against ? ' tree |' : ''} nodes | agents | split | window (warm-up + scored) | events | events/s (CPU) | events/request | CPU us/request | real-time factor (CPU) | peak RSS |`);
console.log(`|${against ? '---|' : ''}---:|---:|---|---|---:|---:|---:|---:|---:|---:|`);
for (const r of rows) {
  const f = figures(r.s);
  console.log(
    `|${treeCol(r)} ${r.nodes} | ${r.agents} | ${r.split} | ${r.window} | ${r.s.events} | ${k(f.eventsPerCpuSecond)} | ${f.eventsPerRequest.toFixed(2)} | ${f.cpuUsPerRequest.toFixed(0)} | ${f.realTimeFactor.toFixed(1)}x | ${(r.s.maxRss / 2 ** 20).toFixed(0)} MB |`,
  );
}
if (steady) {
  console.log('\nPast the start-up (the doubled window\'s run minus the window\'s run, least-CPU run of each):');
  console.log(`\n|${against ? ' tree |' : ''} nodes | windows | events | requests | CPU s | events/s (CPU) | events/request | CPU us/request | real-time factor (CPU) | peak RSS (doubled) |`);
  console.log(`|${against ? '---|' : ''}---:|---|---:|---:|---:|---:|---:|---:|---:|---:|`);
  for (const r of rows) {
    const l = r.long!;
    const head = `|${treeCol(r)} ${r.nodes} | ${l.window} minus ${r.window} |`;
    const rss = `${(l.s.maxRss / 2 ** 20).toFixed(0)} MB`;
    if (!l.steady.ok) {
      console.log(`${head} no figure: ${l.steady.reason} | | | | | | | ${rss} |`);
      continue;
    }
    const { delta: d, figures: f } = l.steady;
    console.log(
      `${head} ${d.events} | ${d.requests} | ${d.cpu.toFixed(2)} | ${k(f.eventsPerCpuSecond)} | ${f.eventsPerRequest.toFixed(2)} | ${f.cpuUsPerRequest.toFixed(0)} | ${f.realTimeFactor.toFixed(1)}x | ${rss} |`,
    );
  }
}
console.log('');
for (const [tree] of trees) {
  const mine = rows.filter((r) => r.tree === tree);
  const first = mine.find((r) => r.nodes === 9);
  const last = mine.find((r) => r.nodes === 1024);
  if (!first || !last) continue;
  const who = against ? `${tree}: ` : '';
  const ratio = eps(last.s) / eps(first.s);
  console.log(
    `${who}events/s at 1,024 nodes / at 9, whole run (issue 13's target, >= 0.5): ${verdict(ratio)}, medians ${(last.median / first.median).toFixed(2)}: target ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
  );
  if (steady) {
    const [a, b] = [first.long!.steady, last.long!.steady];
    if (a.ok && b.ok) {
      const s = b.figures.eventsPerCpuSecond / a.figures.eventsPerCpuSecond;
      const cost = b.figures.cpuUsPerRequest / a.figures.cpuUsPerRequest;
      console.log(
        `${who}events/s at 1,024 nodes / at 9, past the start-up (differenced; isolates the per-event cost, not the issue's figure): ${verdict(s)}; CPU per request 1,024 / 9: ${cost.toFixed(2)}x`,
      );
    } else console.log(`${who}events/s at 1,024 nodes / at 9, past the start-up: no figure (a difference above is no figure)`);
  }
}
if (against) {
  for (const nodes of sizes) {
    const [mine, theirs] = trees.map(([tree]) => rows.find((r) => r.tree === tree && r.nodes === nodes)!);
    let line = `${nodes} nodes: events/s this tree / ${against}: whole run ${(eps(mine!.s) / eps(theirs!.s)).toFixed(2)}x (medians: ${(mine!.median / theirs!.median).toFixed(2)}x)`;
    if (steady) {
      const [a, b] = [mine!.long!.steady, theirs!.long!.steady];
      line += `; past the start-up ${a.ok && b.ok ? `${(a.figures.eventsPerCpuSecond / b.figures.eventsPerCpuSecond).toFixed(2)}x` : 'no figure'}`;
    }
    console.log(line);
  }
}
