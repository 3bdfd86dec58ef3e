/**
 * One bench:sim run in a fresh process, against the simulator build at
 * argv[2] (a dist/src/sim/index.js of this tree or of an older one): prints
 * one JSON line with simulated seconds, events, wall and process CPU seconds,
 * and peak RSS. A fresh process per run keeps the two trees' JIT state and
 * heaps apart. argv[3], optional: the scenario as JSON (default: bench:sim's).
 */
import { pathToFileURL } from 'node:url';
import { BENCH_SIM_SCENARIO } from './bench-scenario.js';

interface SimModule {
  parseScenario(input: Record<string, unknown>): unknown;
  runScenario(s: unknown): { simSeconds: number; events: number; metrics: { requestsArrived: number } };
}

const target = process.argv[2];
if (!target) {
  console.error('usage: run-once.js <path to dist/src/sim/index.js> [scenario JSON]');
  process.exit(2);
}
const sim = (await import(pathToFileURL(target).href)) as SimModule;
const scenario = sim.parseScenario(process.argv[3] ? (JSON.parse(process.argv[3]) as Record<string, unknown>) : BENCH_SIM_SCENARIO);
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const r = sim.runScenario(scenario);
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    simSeconds: r.simSeconds,
    events: r.events,
    requests: r.metrics.requestsArrived,
    wall,
    cpu: (cpu.user + cpu.system) / 1e6,
    rss: process.memoryUsage().rss,
    // Peak, not current: the largest resident set the process reached (kilobytes on Linux).
    maxRss: process.resourceUsage().maxRSS * 1024,
  }),
);
