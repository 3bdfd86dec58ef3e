/**
 * The headline benchmark (issue 11), and the contract-v2 evidence (issue 12):
 * per scenario of the suite, evolve from the seeds with the default offline
 * mutators for a budget, export the best by validation, and score it with the
 * suite on a held-out seed (never used in training or validation) against
 * every seed, the best static split and the window oracle.
 *
 * Arms (`--arms v2,roles`): `v2` evolves from every seed with the whole plan
 * contract; `roles` from the seeds whose code sets no plan knob (routing,
 * eviction, transitions, batching), so that no candidate can set one either
 * (no offline mutator adds a field that is not in its parent's code). Both
 * arms get the same budget, training, validation and held-out seeds, and are
 * scored in one suite run.
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
import { DEFAULT_OFFLINE_MIX } from '../src/evolve/mutators/index.js';
import { listScenarios, loadScenario } from '../src/scenario/index.js';
import { OracleCache, runSuite, SuitePool } from '../src/suite/index.js';
import { ARMS, printReport, rowOf, setsKnobs, type Arm, type EvolveSummary, type Row } from './evolve-suite-report.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const scenarios = (arg('--scenarios') ?? listScenarios().join(',')).split(',');
const iterations = arg('--iterations') === undefined ? undefined : Number(arg('--iterations'));
const minutes = Number(arg('--minutes') ?? 10);
const arms = (arg('--arms') ?? 'v2').split(',') as Arm[];
const validateSeeds = arg('--validate-seeds') ?? '101,102';
const heldOut = Number(arg('--held-out') ?? 103);
const threads = Number(arg('--threads') ?? availableParallelism());
const windowMin = arg('--window-min');
// The wall limit per candidate is a backstop against a hung policy; on a loaded machine a 30 s limit would let the load, not
// the policy, fail an evaluation (a 180-minute scenario takes tens of seconds even on an idle core). Counted cost decides results.
const candidateWallMs = arg('--candidate-wall-ms') ?? '900000';
const out = arg('--out') ?? join(packageRoot(), 'runs', 'evolve-suite');
if (validateSeeds.split(',').map(Number).includes(heldOut)) throw new Error(`--held-out ${heldOut} is one of the validation seeds`);
if (iterations !== undefined && !(Number.isInteger(iterations) && iterations >= 0)) throw new Error(`--iterations ${arg('--iterations')}: not a whole number >= 0`);
for (const a of arms) if (!ARMS.includes(a)) throw new Error(`--arms: unknown arm '${a}' (known: ${ARMS.join(', ')})`);
mkdirSync(out, { recursive: true });

/** The CLI in this process: stdout captured, progress to stderr. */
async function cli(args: string[]): Promise<string> {
  let stdout = '';
  const io: CliIO = { errIsTTY: process.stderr.isTTY, out: (t) => void (stdout += t), err: (t) => void process.stderr.write(t) };
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
      process.stderr.write(`\n== ${name} (${arm}): evolve, ${iterations !== undefined ? `${iterations} iterations` : `${minutes} min`} (${DEFAULT_OFFLINE_MIX}, validation seeds ${validateSeeds}) ==\n`);
      const summary = JSON.parse(
        await cli([
          'evolve', '--scenario', name, '--validate-seeds', validateSeeds, ...budget, '--seeds', armSeeds[arm],
          '--threads', String(threads), '--candidate-wall-ms', candidateWallMs, '--db', db, '--json', ...(windowMin ? ['--window-min', windowMin] : []),
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
  mix: DEFAULT_OFFLINE_MIX,
  threads,
  validateSeeds,
  heldOut,
  windowMin,
  wallMinutes: (performance.now() - started) / 60_000,
  out,
});
