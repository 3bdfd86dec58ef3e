/**
 * Simulator scale: cc on 9, 36, 144, 576 and 1,024 nodes, agents in
 * proportion (126 per 9 nodes), split in proportion (4P5D), evolving-infra
 * mechanics. Prints events per CPU second and simulated seconds per CPU
 * second (real-time factor) per size, each in its own process. The larger
 * clusters simulate shorter windows (printed) so that each run takes a
 * similar number of events. Target: events/s at 1,024 nodes at least half of
 * that at 9.
 * Run: npm run bench:scale [-- --sizes 9,36] [-- --repeat N]
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runOnce, type RunSample } from './sim/against.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const runner = join(here, 'sim', 'run-once.js');
const sim = join(resolve(here, '..', '..'), 'dist', 'src', 'sim', 'index.js');

/** Warm-up and scored minutes per size: about the same event count for each. */
const WINDOWS: Record<number, [number, number]> = { 9: [30, 60], 36: [10, 20], 144: [3, 6], 576: [1, 2], 1024: [1, 2] };

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}
const sizes = (flag('--sizes') ?? '9,36,144,576,1024').split(',').map(Number);
const repeat = Number(flag('--repeat') ?? 1);
for (const n of sizes) {
  if (!WINDOWS[n]) {
    console.error(`--sizes: ${n} is not one of ${Object.keys(WINDOWS).join(', ')}`);
    process.exit(2);
  }
}
if (!Number.isInteger(repeat) || repeat < 1) {
  console.error(`--repeat must be a positive integer, got ${flag('--repeat')}`);
  process.exit(2);
}

interface Row {
  nodes: number;
  agents: number;
  split: string;
  window: string;
  s: RunSample;
}
const rows: Row[] = [];
for (const nodes of sizes) {
  const agents = Math.round((126 * nodes) / 9);
  const p = Math.round((4 * nodes) / 9);
  const split = `${p}P${nodes - p}D`;
  const [warmupMinutes, minutes] = WINDOWS[nodes]!;
  const scenario = { workload: 'cc', agents, nodes, split, warmupMinutes, minutes, seed: 1 };
  let best: RunSample | undefined;
  for (let i = 0; i < repeat; i++) {
    const s = runOnce(runner, sim, scenario);
    if (!best || s.cpu < best.cpu) best = s;
  }
  const row = { nodes, agents, split, window: `${warmupMinutes}+${minutes} min`, s: best! };
  rows.push(row);
  console.log(`${nodes} nodes: ${format(row)}`);
}

function format(r: Row): string {
  const { s } = r;
  return `${r.agents} agents, ${r.split}, ${r.window}: ${s.events} events, ${(s.events / s.cpu / 1e3).toFixed(1)}k events/s, ${(s.simSeconds / s.cpu).toFixed(1)}x real time (CPU ${s.cpu.toFixed(1)} s, wall ${s.wall.toFixed(1)} s), peak ${(s.maxRss / 2 ** 20).toFixed(0)} MB`;
}

console.log('\n| nodes | agents | split | window (warm-up + scored) | events | events/s (CPU) | real-time factor (CPU) | peak RSS |');
console.log('|---:|---:|---|---|---:|---:|---:|---:|');
for (const r of rows) {
  const { s } = r;
  console.log(
    `| ${r.nodes} | ${r.agents} | ${r.split} | ${r.window} | ${s.events} | ${(s.events / s.cpu / 1e3).toFixed(1)}k | ${(s.simSeconds / s.cpu).toFixed(1)}x | ${(s.maxRss / 2 ** 20).toFixed(0)} MB |`,
  );
}
const first = rows.find((r) => r.nodes === 9);
const last = rows.find((r) => r.nodes === 1024);
if (first && last) {
  const ratio = last.s.events / last.s.cpu / (first.s.events / first.s.cpu);
  console.log(`\nevents/s at 1,024 nodes / at 9: ${ratio.toFixed(2)} (target >= 0.5: ${ratio >= 0.5 ? 'met' : 'NOT met'})`);
}
