/**
 * Evaluation speed: one candidate (the evolving-infra seed, sandboxed) on a
 * 10-minute cc window with 126 agents (plus 2 minutes of warm-up), as the
 * evolution engine evaluates candidates. Prints the wall time per evaluation
 * (the snapshot is built and its engine model learned once, as in a run;
 * both are timed apart). Target (issue #13): at most 0.15 s.
 * Run: npm run bench:evaluate [-- --repeat N]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSnapshot, evaluatePolicy, parseSchedCost, snapshotEngineModel } from '../src/evaluate/index.js';
import { MECHANICS_PRESETS, parseSplit } from '../src/sim/index.js';
import { packageRoot } from '../src/common/package-root.js';
import { EvolveConfigSchema } from '../src/evolve/engine/index.js';
import { benchFlags, numberFlag } from './args.js';

const flags = benchFlags('evaluate', 'wall and CPU time of one candidate evaluation on a 10-minute cc window with 126 agents', {
  repeat: { type: 'string', help: 'evaluations (default 5)' },
  'sched-cost': { type: 'string', help: "counted | measured | zero | fixed:MS (default: evolve's, counted)" },
});
const repeat = numberFlag('evaluate', 'repeat', flags.repeat, 5, { integer: true, min: 1 });
// The cost model evolve evaluates candidates with by default, so the bench times what a run does.
const costSpec = flags['sched-cost'] ?? EvolveConfigSchema.shape.schedCost.parse(undefined);
const schedCost = parseSchedCost(costSpec);
const source = readFileSync(join(packageRoot(), 'seeds', 'evolving-infra.js'), 'utf8');
const t0 = process.hrtime.bigint();
const snapshot = buildSnapshot({
  workload: 'cc',
  agents: 126,
  roles: parseSplit('4P5D', 9),
  nodeKinds: Array(9).fill('gb300'),
  mechanics: MECHANICS_PRESETS['evolving-infra'],
  warmupMinutes: 2,
  minutes: 10,
  seed: 1,
});
console.log(`snapshot (trace of 12 min, ${snapshot.trace.events.length} lines) built in ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2)} s`);
const t1 = process.hrtime.bigint();
snapshotEngineModel(snapshot);
console.log(`its engine model (reference replay of the warm-up, once per snapshot) learned in ${(Number(process.hrtime.bigint() - t1) / 1e9).toFixed(2)} s`);

const walls: number[] = [];
const cpus: number[] = [];
for (let i = 0; i < repeat; i++) {
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const e = evaluatePolicy(snapshot, { name: 'evolving-infra', source }, { schedCost });
  const cpu = process.cpuUsage(cpu0);
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  walls.push(wall);
  cpus.push((cpu.user + cpu.system) / 1e6);
  console.log(`evaluation ${i + 1}: ${wall.toFixed(3)} s wall, ${cpus[i]!.toFixed(3)} s CPU, T_total ${e.fitness.tTotal.toFixed(1)} s, ${e.metrics.requestsArrived} requests`);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\nbench:evaluate cc 126 agents, 10-min window + 2-min warm-up, evolving-infra seed, sched-cost ${costSpec}`);
console.log(`median wall per evaluation: ${median(walls).toFixed(3)} s (best ${Math.min(...walls).toFixed(3)} s)`);
console.log(`median CPU per evaluation: ${median(cpus).toFixed(3)} s (best ${Math.min(...cpus).toFixed(3)} s)`);
console.log(`target <= 0.15 s: ${median(walls) <= 0.15 ? 'met' : 'NOT met'}`);
