/**
 * The headline benchmark (issue 11): per scenario of the suite, evolve from
 * the seeds with the default offline mutators for a wall budget, export the
 * best by validation, and score it with the suite on a held-out seed (never
 * used in training or validation) against every seed, the best static split
 * and the window oracle. Prints one markdown table and whether each target
 * of the issue is met:
 *   - on every scenario the evolved policy is never below the best seed by more than 1 % (throughput);
 *   - on at least 3 scenarios it is >= 10 % above the best seed in throughput (or >= 10 % below in T_total);
 *   - on `shifting` it closes at least half of the best-seed-to-window-oracle gap.
 * Run: npm run bench:evolve-suite [-- --scenarios a,b] [-- --minutes M] [-- --validate-seeds 101,102]
 *      [-- --held-out 103] [-- --threads N] [-- --window-min M] [-- --out DIR]
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli/main.js';
import type { CliIO } from '../src/cli/io.js';
import { packageRoot } from '../src/common/package-root.js';
import { DEFAULT_SCHED_COST, parseSchedCost } from '../src/evaluate/index.js';
import { DEFAULT_OFFLINE_MIX } from '../src/evolve/mutators/index.js';
import { listScenarios, loadScenario } from '../src/scenario/index.js';
import { OracleCache, runSuite, SuitePool, type ScenarioReport } from '../src/suite/index.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const scenarios = (arg('--scenarios') ?? listScenarios().join(',')).split(',');
const minutes = Number(arg('--minutes') ?? 10);
const validateSeeds = arg('--validate-seeds') ?? '101,102';
const heldOut = Number(arg('--held-out') ?? 103);
const threads = Number(arg('--threads') ?? availableParallelism());
const windowMin = arg('--window-min');
const out = arg('--out') ?? join(packageRoot(), 'runs', 'evolve-suite');
if (validateSeeds.split(',').map(Number).includes(heldOut)) throw new Error(`--held-out ${heldOut} is one of the validation seeds`);
mkdirSync(out, { recursive: true });

/** The CLI in this process: stdout captured, progress to stderr. */
async function cli(args: string[]): Promise<string> {
  let stdout = '';
  const io: CliIO = { errIsTTY: process.stderr.isTTY, out: (t) => void (stdout += t), err: (t) => void process.stderr.write(t) };
  const code = await runCli(args, io);
  if (code !== 0) throw new Error(`autopoiesis ${args.join(' ')}: exit ${code}`);
  return stdout;
}

interface Row {
  scenario: string;
  bestSeed: { policy: string; throughput: number; tTotal: number };
  evolved: { throughput: number; tTotal: number; id: number; iterations: number; evaluated: number; validationPct: number | null };
  staticBest: { split: string; throughput: number };
  window: number;
  headroomPct: number | null;
  vsSeedPct: number;
  tTotalVsSeedPct: number;
  cells: number;
}

const seedsDir = join(packageRoot(), 'seeds');
const seedFiles = readdirSync(seedsDir).filter((f) => f.endsWith('.js')).sort();
const pool = new SuitePool(threads);
const rows: Row[] = [];
const started = performance.now();
try {
  for (const name of scenarios) {
    const db = join(out, `${name}.db`);
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    process.stderr.write(`\n== ${name}: evolve for ${minutes} min (${DEFAULT_OFFLINE_MIX}, validation seeds ${validateSeeds}) ==\n`);
    const summary = JSON.parse(
      await cli([
        'evolve', '--scenario', name, '--validate-seeds', validateSeeds, '--max-minutes', String(minutes), '--iterations', '1000000',
        '--threads', String(threads), '--db', db, '--json', ...(windowMin ? ['--window-min', windowMin] : []),
      ]),
    );
    const best = summary.validation?.best ?? summary.best;
    const file = join(out, `${name}-evolved.js`);
    await cli(['export', String(best.id), '--db', db, '-o', file]);
    const policies = [
      ...seedFiles.map((f) => ({ name: f.replace(/\.js$/, ''), source: readFileSync(join(seedsDir, f), 'utf8') })),
      { name: 'evolved', source: readFileSync(file, 'utf8') },
    ];
    const { report } = await runSuite({
      scenarios: [loadScenario(name)],
      policies,
      seed: heldOut,
      schedCost: parseSchedCost(DEFAULT_SCHED_COST),
      pool,
      cache: new OracleCache(join(packageRoot(), 'runs', 'oracles')),
    });
    rows.push(rowOf(report.scenarios[0]!, best.id, summary));
  }
} finally {
  await pool.close();
}

function rowOf(s: ScenarioReport, id: number, summary: { iterations: number; evaluated: number; validation?: { improvementPct: number | null }; archive: { occupiedCells: number } }): Row {
  const seeds = s.policies.filter((p) => p.policy !== 'evolved');
  const bestSeed = seeds.reduce((a, b) => (b.throughput > a.throughput ? b : a));
  const evolved = s.policies.find((p) => p.policy === 'evolved')!;
  const gap = s.oracle.window.throughput - bestSeed.throughput;
  return {
    scenario: s.name,
    bestSeed: { policy: bestSeed.policy, throughput: bestSeed.throughput, tTotal: bestSeed.tTotal },
    evolved: { throughput: evolved.throughput, tTotal: evolved.tTotal, id, iterations: summary.iterations, evaluated: summary.evaluated, validationPct: summary.validation?.improvementPct ?? null },
    staticBest: { split: s.oracle.staticBest.split, throughput: s.oracle.staticBest.throughput },
    window: s.oracle.window.throughput,
    headroomPct: gap > 0 ? ((evolved.throughput - bestSeed.throughput) / gap) * 100 : null,
    vsSeedPct: (evolved.throughput / bestSeed.throughput - 1) * 100,
    tTotalVsSeedPct: (evolved.tTotal / bestSeed.tTotal - 1) * 100,
    cells: summary.archive.occupiedCells,
  };
}

const f3 = (x: number) => x.toFixed(3);
const pct = (x: number | null) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${x.toFixed(1)} %`);
const wall = (performance.now() - started) / 60_000;
console.log(`bench:evolve-suite: ${minutes} min of evolution per scenario (${DEFAULT_OFFLINE_MIX}), ${threads} threads, validation seeds ${validateSeeds}, held-out seed ${heldOut}; wall ${wall.toFixed(1)} min\n`);
console.log('| scenario | best seed (req/s) | evolved (req/s) | vs best seed | T_total vs best seed | best static | window oracle | headroom captured | iterations / evaluated | cells |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.scenario} | ${r.bestSeed.policy} ${f3(r.bestSeed.throughput)} | #${r.evolved.id} ${f3(r.evolved.throughput)} | ${pct(r.vsSeedPct)} | ${pct(r.tTotalVsSeedPct)} | ${r.staticBest.split} ${f3(r.staticBest.throughput)} | ${f3(r.window)} | ${pct(r.headroomPct)} | ${r.evolved.iterations} / ${r.evolved.evaluated} | ${r.cells} |`,
  );
}
const notWorse = rows.filter((r) => r.vsSeedPct < -1);
const tenPct = rows.filter((r) => r.vsSeedPct >= 10 || r.tTotalVsSeedPct <= -10);
const shifting = rows.find((r) => r.scenario === 'shifting');
console.log('\nTargets (held-out seed):');
console.log(`- never more than 1 % below the best seed: ${notWorse.length === 0 ? 'met' : `NOT met on ${notWorse.map((r) => `${r.scenario} (${pct(r.vsSeedPct)})`).join(', ')}`}`);
console.log(`- >= 10 % better than the best seed on at least 3 scenarios: ${tenPct.length >= 3 ? 'met' : 'NOT met'} (${tenPct.length}: ${tenPct.map((r) => r.scenario).join(', ') || 'none'}${rows.length < 3 ? `; only ${rows.length} scenario(s) run` : ''})`);
console.log(`- shifting closes >= half the best-seed-to-window-oracle gap: ${shifting ? (shifting.headroomPct !== null && shifting.headroomPct >= 50 ? 'met' : `NOT met (${pct(shifting.headroomPct)})`) : 'not run'}`);
console.log(`\nlineages and evolved policies: ${out} (autopoiesis show ID --db ${out}/NAME.db --diff)`);
