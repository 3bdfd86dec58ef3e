/**
 * The headline benchmark (issue 11), and the contract-v2 evidence (issue 12):
 * per scenario of the suite, evolve from the seeds with the default offline
 * mutators for a budget, export the best by validation, and score it with the
 * suite on a held-out seed (never used in training or validation) against
 * every seed, the best static split and the window oracle.
 *
 * Arms (`--arms v2,roles`): `v2` evolves from every seed with the whole plan
 * contract and the default mix (with `knob-search`, which inserts plan knobs);
 * `roles` from the seeds whose code sets no plan knob (routing, eviction,
 * transitions, batching), with the mix that leaves knob insertion out, so that no
 * candidate can set one either (no other offline mutator adds a field that is
 * not in its parent's code). Both arms get the same budget, training,
 * validation and held-out seeds, and are scored in one suite run.
 *
 * Budget: `--minutes M` of wall per arm and scenario (default 10), or
 * `--iterations N` (then no wall limit): the same candidates on any machine
 * under any load, which is what a comparison of arms should rest on.
 *
 * Run: npm run bench:evolve-suite [-- --scenarios a,b] [-- --minutes M | --iterations N] [-- --arms v2,roles]
 *      [-- --validate-seeds 101,102] [-- --held-out 103] [-- --threads N] [-- --window-min M] [-- --candidate-wall-ms MS] [-- --out DIR]
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli/main.js';
import type { CliIO } from '../src/cli/io.js';
import { packageRoot } from '../src/common/package-root.js';
import { DEFAULT_SCHED_COST, parseSchedCost } from '../src/evaluate/index.js';
import { DEFAULT_OFFLINE_MIX, ROLES_ONLY_OFFLINE_MIX } from '../src/evolve/mutators/index.js';
import { listScenarios, loadScenario } from '../src/scenario/index.js';
import { OracleCache, runSuite, SuitePool } from '../src/suite/index.js';
import { benchFlags, benchUsageExit, numberFlag } from './args.js';
import { ARMS, printReport, rowOf, setsKnobs, type Arm, type EvolveSummary, type Row } from './evolve-suite-report.js';

const BENCH = 'evolve-suite';
const flags = benchFlags(BENCH, 'evolve per scenario from the seeds, export the best by validation, score it on a held-out seed', {
  scenarios: { type: 'string', help: 'comma-separated scenario names (default: all of evaluator/scenarios)' },
  minutes: { type: 'string', help: 'wall budget per arm and scenario, minutes (default 10)' },
  iterations: { type: 'string', help: 'a fixed number of iterations instead of the wall budget' },
  arms: { type: 'string', help: `comma-separated arms: ${ARMS.join(', ')} (default v2)` },
  'validate-seeds': { type: 'string', help: 'validation seeds (default 101,102)' },
  'held-out': { type: 'string', help: 'the held-out seed the table is scored on (default 103)' },
  threads: { type: 'string', help: 'evaluator threads (default: the cores)' },
  'window-min': { type: 'string', help: "training window, minutes (default: the scenario's)" },
  'candidate-wall-ms': { type: 'string', help: 'wall limit per candidate, a backstop against a hung policy (default 900000)' },
  out: { type: 'string', help: 'output folder (default runs/evolve-suite)' },
  'no-pipeline': { type: 'boolean', help: 'evolve one batch at a time (the loop before pipelining; reproduces the tables of 2026-12-01 in docs/evolution.md)' },
});
const scenarios = (flags.scenarios ?? listScenarios().join(',')).split(',');
const iterations = flags.iterations === undefined ? undefined : numberFlag(BENCH, 'iterations', flags.iterations, 0, { integer: true, min: 0 });
const minutes = numberFlag(BENCH, 'minutes', flags.minutes, 10, { min: 0 });
const arms = (flags.arms ?? 'v2').split(',') as Arm[];
const validateSeeds = flags['validate-seeds'] ?? '101,102';
const heldOut = numberFlag(BENCH, 'held-out', flags['held-out'], 103, { integer: true, min: 0 });
const threads = numberFlag(BENCH, 'threads', flags.threads, availableParallelism(), { integer: true, min: 1 });
const windowMin = flags['window-min'];
// The wall limit per candidate is a backstop against a hung policy; on a loaded machine a 30 s limit would let the load, not
// the policy, fail an evaluation (a 180-minute scenario takes tens of seconds even on an idle core). Counted cost decides results.
const candidateWallMs = flags['candidate-wall-ms'] ?? '900000';
const out = flags.out ?? join(packageRoot(), 'runs', 'evolve-suite');
const usage = (message: string): never => benchUsageExit(BENCH, message);
if (validateSeeds.split(',').map(Number).includes(heldOut)) usage(`--held-out ${heldOut} is one of the validation seeds`);
for (const a of arms) if (!ARMS.includes(a)) usage(`--arms: unknown arm '${a}' (known: ${ARMS.join(', ')})`);
for (const s of scenarios) if (!listScenarios().includes(s) && !s.endsWith('.json')) usage(`--scenarios: unknown scenario '${s}' (known: ${listScenarios().join(', ')})`);
mkdirSync(out, { recursive: true });

/** The CLI in this process: stdout captured, progress to stderr (plain lines off a terminal: a 10-minute evolve would say nothing else). */
async function cli(args: string[]): Promise<string> {
  let stdout = '';
  const io: CliIO = {
    errIsTTY: process.stderr.isTTY,
    progress: process.stderr.isTTY ? 'auto' : 'lines',
    out: (t) => void (stdout += t),
    err: (t) => void process.stderr.write(t),
  };
  const code = await runCli(args, io);
  if (code !== 0) throw new Error(`autopoiesis ${args.join(' ')}: exit ${code}`);
  return stdout;
}

const seedsDir = join(packageRoot(), 'seeds');
const seeds = readdirSync(seedsDir)
  .filter((f) => f.endsWith('.js'))
  .sort()
  .map((f) => ({ name: f.replace(/\.js$/, ''), source: readFileSync(join(seedsDir, f), 'utf8') }));
/** Each arm's seeds folder: all seeds for v2, those that set no knob for roles. */
const armSeeds: Record<Arm, string> = { v2: seedsDir, roles: join(out, 'seeds-roles-only') };
/** Each arm's mutators: the roles-only arm without knob insertion (the only mutator that adds a plan field). */
const armMix: Record<Arm, string> = { v2: DEFAULT_OFFLINE_MIX, roles: ROLES_ONLY_OFFLINE_MIX };
if (arms.includes('roles')) {
  rmSync(armSeeds.roles, { recursive: true, force: true });
  mkdirSync(armSeeds.roles, { recursive: true });
  for (const s of seeds.filter((s) => !setsKnobs(s.source))) writeFileSync(join(armSeeds.roles, `${s.name}.js`), s.source);
}
const budget = iterations !== undefined ? ['--iterations', String(iterations)] : ['--max-minutes', String(minutes), '--iterations', '1000000'];

const pool = new SuitePool(threads);
const rows: Row[] = [];
const started = performance.now();
try {
  for (const name of scenarios) {
    const evolved: { arm: Arm; id: number; summary: EvolveSummary; source: string }[] = [];
    for (const arm of arms) {
      const db = join(out, `${name}-${arm}.db`);
      for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
      process.stderr.write(`\n== ${name} (${arm}): evolve, ${iterations !== undefined ? `${iterations} iterations` : `${minutes} min`} (${armMix[arm]}, validation seeds ${validateSeeds}) ==\n`);
      const summary = JSON.parse(
        await cli([
          'evolve', '--scenario', name, '--validate-seeds', validateSeeds, ...budget, '--seeds', armSeeds[arm], '--mutator', armMix[arm],
          '--threads', String(threads), '--candidate-wall-ms', candidateWallMs, '--db', db, '--json', ...(windowMin ? ['--window-min', windowMin] : []),
          ...(flags['no-pipeline'] ? ['--no-pipeline'] : []),
        ]),
      ) as EvolveSummary;
      const best = summary.validation?.best ?? summary.best;
      const file = join(out, `${name}-${arm}-evolved.js`);
      await cli(['export', String(best.id), '--db', db, '-o', file]);
      const source = readFileSync(file, 'utf8');
      if (arm === 'roles' && setsKnobs(source)) throw new Error(`${file}: the roles-only arm's best sets a plan knob; the arm is not roles-only`);
      evolved.push({ arm, id: best.id, summary, source });
    }
    const { report } = await runSuite({
      scenarios: [loadScenario(name)],
      policies: [...seeds, ...evolved.map((e) => ({ name: `evolved-${e.arm}`, source: e.source }))],
      seed: heldOut,
      schedCost: parseSchedCost(DEFAULT_SCHED_COST),
      pool,
      cache: new OracleCache(join(packageRoot(), 'runs', 'oracles')),
    });
    rows.push(rowOf(report.scenarios[0]!, evolved, seeds.filter((s) => setsKnobs(s.source)).map((s) => s.name)));
  }
} finally {
  await pool.close();
}

printReport(rows, {
  budget: iterations !== undefined ? `${iterations} iterations` : `${minutes} min of wall`,
  mix: arms.map((a) => `${a}: ${armMix[a]}`).join('; '),
  threads,
  validateSeeds,
  heldOut,
  windowMin,
  wallMinutes: (performance.now() - started) / 60_000,
  out,
});
