/**
 * Evolution throughput and improvement: a structural-mutator run on a
 * 10-minute cc window with 126 agents (2 minutes of warm-up), on this
 * machine's cores. Prints evaluations per minute (target, issue #13: at least
 * 400 on 2 cores) and the best candidate against the best seed (T_total and
 * throughput), whatever they are.
 * Run: npm run bench:evolve [-- --iterations 200] [-- --batch N] [-- --no-pipeline] [-- --no-reuse] [-- --db runs/bench-evolve.db]
 * (--no-pipeline: one batch in the pool at a time, docs/evolution.md)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { EvolutionRun, EvolveConfigSchema } from '../src/evolve/engine/index.js';
import { openLineageStore } from '../src/store/index.js';
import { packageRoot } from '../src/common/package-root.js';
import { benchFlags, numberFlag } from './args.js';

const flags = benchFlags('evolve', 'evaluations per minute of a structural run on a 10-minute cc window, and its best against the best seed', {
  iterations: { type: 'string', help: 'iterations (default 200)' },
  batch: { type: 'string', help: 'candidates per iteration (default: the worker threads)' },
  'no-pipeline': { type: 'boolean', help: 'one batch in the pool at a time (docs/evolution.md)' },
  db: { type: 'string', help: 'lineage database (default: a temporary file)' },
  'no-reuse': { type: 'boolean', help: "simulate every candidate (default: a child first tries its parent's trajectory, docs/evolution.md)" },
});
const iterations = numberFlag('evolve', 'iterations', flags.iterations, 200, { integer: true, min: 1 });
const batch = flags.batch === undefined ? undefined : numberFlag('evolve', 'batch', flags.batch, 0, { integer: true, min: 1 });
const db = flags.db ?? join(mkdtempSync(join(tmpdir(), 'bench-evolve-')), 'lineage.db');
const config = EvolveConfigSchema.parse({
  workload: 'cc',
  agents: 126,
  windowMinutes: 10,
  warmupMinutes: 2,
  iterations,
  batch,
  pipeline: !flags['no-pipeline'],
  ...(flags['no-reuse'] ? { trajectoryCacheMb: 0 } : {}),
  seed: 1,
  seedsDir: join(packageRoot(), 'seeds'),
});

const started = performance.now();
const run = await EvolutionRun.open(config, db, false);
let last = 0;
let busyMs = 0;
let runMs = 0;
const summary = await run.run({
  onIteration: (p) => {
    busyMs = p.evaluationWallMs;
    runMs = performance.now() - started;
    if (p.iteration - last >= 20 || p.iteration === iterations) {
      last = p.iteration;
      console.log(`iteration ${p.iteration}: best T_total ${p.bestFitness?.toFixed(2)} s, ${p.evaluated} evaluated, ${p.failed} failed, ${(p.evalsPerSecond * 60).toFixed(0)} evals/min`);
    }
  },
});
run.close();
const minutes = (performance.now() - started) / 60_000;

const store = openLineageStore(db, { readonly: true });
const best = summary.best ? store.getCandidate(summary.best.id)! : undefined;
const seed = summary.seedsBest ? store.getCandidate(summary.seedsBest.id)! : undefined;
const throughput = (c: typeof best) => (c?.metrics as { throughput?: number } | null)?.throughput;
store.close();

console.log(`\nbench:evolve structural, cc 126 agents, 10-min window + 2-min warm-up, ${iterations} iterations, ${availableParallelism()} cores, ${config.pipeline ? 'pipelined' : 'one batch at a time'}`);
console.log(`lineage: ${db}`);
const cpu = process.cpuUsage();
console.log(`process CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s = ${((cpu.user + cpu.system) / 1e6 / Math.max(1, summary.evaluated)).toFixed(3)} s per evaluation (all threads, start-up included)`);
const threads = config.threads ?? availableParallelism();
// The workers' share of the run spent on a candidate (the seeds' iteration and worker start-up included): idle workers show here, not in CPU time.
console.log(`workers busy: ${((100 * busyMs) / (threads * runMs)).toFixed(1)} % of ${threads} x ${(runMs / 1000).toFixed(1)} s`);
console.log(`evaluations: ${summary.evaluated} in ${minutes.toFixed(2)} min = ${(summary.evaluated / minutes).toFixed(0)} per minute (target >= 400: ${summary.evaluated / minutes >= 400 ? 'met' : 'NOT met'})`);
console.log(`failed or rejected: ${JSON.stringify(summary.failedByKind)}`);
const t = summary.trajectories;
console.log(
  t
    ? `trajectories: ${t.reused} evaluations reused a kept one (${t.reusedOther} of them not their parent's), ${t.simulated} simulated (${t.diverged} of them after one was tried)`
    : 'trajectories: not reused (--no-reuse)',
);
if (best && seed) {
  console.log(`best seed  #${seed.id} (${seed.editSummary}): T_total ${seed.fitness!.toFixed(3)} s, throughput ${throughput(seed)?.toFixed(3)} req/s`);
  console.log(`best found #${best.id} (${best.mutator}): T_total ${best.fitness!.toFixed(3)} s, throughput ${throughput(best)?.toFixed(3)} req/s`);
  console.log(`improvement in T_total: ${summary.improvementPct?.toFixed(3)} %`);
}
