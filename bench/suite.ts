/**
 * The scenario suite as a benchmark: every seed policy on every scenario
 * (evaluator/scenarios) against both oracles, printed as one markdown table
 * with the wall time. Oracles come from runs/oracles when cached; `--cold`
 * computes them afresh in a temporary folder (the first-run cost).
 * Target: under 10 minutes on 2 cores once the oracles are cached.
 * Run: npm run bench:suite [-- --cold] [-- --threads N] [-- --seed N]
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/common/package-root.js';
import { DEFAULT_SCHED_COST, parseSchedCost } from '../src/evaluate/index.js';
import { listScenarios, loadScenario } from '../src/scenario/index.js';
import { benchFlags, numberFlag } from './args.js';
import { formatSuiteMarkdown, OracleCache, runSuite, SuitePool } from '../src/suite/index.js';

const flags = benchFlags('suite', 'every seed on every scenario against both oracles, as one markdown table', {
  cold: { type: 'boolean', help: 'compute the oracles afresh in a temporary folder (the first-run cost)' },
  threads: { type: 'string', help: 'worker threads (default: the cores)' },
  seed: { type: 'string', help: "workload seed (default: each scenario's)" },
});
const cold = flags.cold;
const threads = numberFlag('suite', 'threads', flags.threads, availableParallelism(), { integer: true, min: 1 });
const seed = flags.seed === undefined ? undefined : numberFlag('suite', 'seed', flags.seed, 0, { integer: true, min: 0 });

const seedsDir = join(packageRoot(), 'seeds');
const policies = readdirSync(seedsDir)
  .filter((f) => f.endsWith('.js'))
  .sort()
  .map((f) => ({ name: f.replace(/\.js$/, ''), source: readFileSync(join(seedsDir, f), 'utf8') }));
const scenarios = listScenarios().map((name) => loadScenario(name));
const cacheDir = cold ? mkdtempSync(join(tmpdir(), 'oracles-')) : join(packageRoot(), 'runs', 'oracles');

const started = performance.now();
const pool = new SuitePool(threads);
let last = 0;
try {
  const { report, oraclesFromCache } = await runSuite({
    scenarios,
    policies,
    seed,
    schedCost: parseSchedCost(DEFAULT_SCHED_COST),
    pool,
    cache: new OracleCache(cacheDir),
    onProgress: (done, total, note) => {
      const now = performance.now();
      if (now - last > 30_000 || done === total) {
        last = now;
        process.stderr.write(`[${((now - started) / 1000).toFixed(0)} s] ${done}/${total} ${note}\n`);
      }
    },
  });
  const wall = (performance.now() - started) / 1000;
  console.log(`bench:suite: ${policies.length} policies x ${scenarios.length} scenarios, sched cost ${report.schedCost}, ${threads} threads, code ${report.codeVersion}\n`);
  console.log(formatSuiteMarkdown(report));
  console.log(`oracles: ${oraclesFromCache} of ${scenarios.length} from the cache (${cacheDir})`);
  console.log(`wall time: ${wall.toFixed(1)} s (target with cached oracles: < 600 s: ${oraclesFromCache === scenarios.length ? (wall < 600 ? 'met' : 'NOT met') : 'not measured, oracles were computed'})`);
} finally {
  await pool.close();
}
