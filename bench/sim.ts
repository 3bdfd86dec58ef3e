/**
 * Simulator speed: cc with 126 agents on 9 nodes, 30 min warm-up + 60 min
 * scored, evolving-infra mechanics, on one core. Prints simulated seconds per
 * wall second, events per second and peak memory. Target: >= 1,500x real time
 * with under 1 GB of memory.
 * Run: npm run bench:sim [-- --repeat N]
 */
import { parseScenario, runScenario } from '../src/sim/index.js';

const repeatAt = process.argv.indexOf('--repeat');
const repeat = repeatAt > 0 ? Number(process.argv[repeatAt + 1]) : 3;
const scenario = parseScenario({ workload: 'cc', agents: 126, nodes: 9, split: '4P5D', warmupMinutes: 30, minutes: 60, seed: 1 });

let peakRss = 0;
const samples: { wall: number; events: number; sim: number }[] = [];
for (let i = 0; i < repeat; i++) {
  const t0 = process.hrtime.bigint();
  const r = runScenario(scenario);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  samples.push({ wall, events: r.events, sim: r.simSeconds });
  console.log(`run ${i + 1}: ${r.simSeconds} sim s in ${wall.toFixed(2)} s wall = ${(r.simSeconds / wall).toFixed(0)}x real time, ${(r.events / wall / 1e3).toFixed(0)}k events/s, ${r.metrics.requestsArrived} requests`);
}
const best = samples.reduce((a, b) => (a.wall < b.wall ? a : b));
const speed = best.sim / best.wall;
console.log(`\nbench:sim cc 126 agents, 9 nodes, 4P5D, 30+60 min, evolving-infra`);
console.log(`speed (best of ${repeat}): ${speed.toFixed(0)}x real time; ${(best.events / best.wall / 1e3).toFixed(0)}k events/s`);
console.log(`peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MB`);
console.log(`target >= 1500x real time and < 1024 MB: ${speed >= 1500 && peakRss < 2 ** 30 ? 'met' : 'NOT met'}`);
