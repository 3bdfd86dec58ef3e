import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import { DEFAULT_SCHED_COST, parseSchedCost } from '../evaluate/index.js';
import { listScenarios, loadScenario, type LoadedScenario } from '../scenario/index.js';
import { computeOracles, oracleCandidates, formatSuiteMarkdown, formatSuiteText, OracleCache, QueueSuiteRunner, runSuite, scenarioCluster, scenarioSource, SuitePool, type OracleResult } from '../suite/index.js';
import type { CliIO } from './io.js';
import { floatOption, intOption } from './options.js';
import { queueProgress } from './queue-progress.js';
import { readPolicyFile } from './policy-file.js';
import { progressBar } from './progress.js';
import { renderTable } from './table.js';

const DEFAULT_CACHE_DIR = join('runs', 'oracles');

interface SuiteFlags {
  scenarios: string;
  policies?: string[];
  seed?: number;
  threads?: number;
  schedCost: string;
  cacheDir: string;
  cache: boolean;
  oraclesOnly: boolean;
  json: boolean;
  markdown: boolean;
  queue?: string;
  queueTimeout: number;
}

interface OracleFlags {
  scenario: string;
  seed?: number;
  threads?: number;
  cacheDir: string;
  cache: boolean;
  json: boolean;
}

export function registerSuiteCommands(program: Command, io: CliIO): void {
  program
    .command('suite')
    .description('Score policies on the scenario suite against each scenario\'s oracles (best static split, window oracle)')
    .option('--scenarios <all|a,b>', 'scenarios by name or file, comma-separated, or all of evaluator/scenarios', 'all')
    .option('--policies <files...>', 'policy files (default: every seeds/*.js)')
    .option('--seed <n>', "run every scenario at this seed (default: each scenario's own)", intOption('--seed', 0))
    .option('--threads <n>', "worker threads (default: the machine's cores; 1 runs in this thread)", intOption('--threads', 1, 64))
    .option('--sched-cost <counted|measured|zero|fixed:MS>', "how the policies' scheduling time is charged (as in replay)", DEFAULT_SCHED_COST)
    .option('--cache-dir <dir>', 'where oracle results are cached', DEFAULT_CACHE_DIR)
    .option('--no-cache', 'compute the oracles without reading or writing the cache')
    .option('--oracles-only', 'compute and print the oracles only, no policies', false)
    .option('--json', 'print {scenarios: [{name, oracle: {staticBest, window}, policies: [...]}]}', false)
    .option('--markdown', 'print one markdown table', false)
    .option('--queue <redis://HOST:PORT/NAME>', 'send the runs as BullMQ jobs to `autopoiesis worker` processes instead of worker threads here (docs/distributed.md)')
    .option('--queue-timeout <s>', 'with --queue: fail (exit 1) when no worker has been connected this long while runs wait', floatOption('--queue-timeout', 1), 300)
    .action(async (flags: SuiteFlags) => {
      const scenarios = selectScenarios(flags.scenarios);
      const policies = flags.oraclesOnly ? [] : (flags.policies?.length ? flags.policies : defaultSeeds()).map(readPolicyFile);
      const schedCost = parseSchedCost(flags.schedCost);
      const threads = flags.threads ?? availableParallelism();
      const queue = flags.queue ? queueProgress('suite', flags.queue, flags.queueTimeout, io) : undefined;
      const pool = queue
        ? await QueueSuiteRunner.open({ address: queue.address, threads, timeoutMs: flags.queueTimeout * 1000, onStatus: (s) => queue.onStatus(s) })
        : new SuitePool(threads);
      let bar: ReturnType<typeof progressBar> | undefined;
      const line = { done: 0, note: '' };
      const draw = () => bar?.update(line.done, [line.note, queue?.note()].filter(Boolean).join(', '));
      if (queue) queue.onChange = draw;
      try {
        const { report, oraclesFromCache } = await runSuite({
          scenarios,
          policies,
          seed: flags.seed,
          schedCost,
          pool,
          cache: flags.cache ? new OracleCache(flags.cacheDir) : undefined,
          onProgress: (done, total, note) => {
            bar ??= progressBar(io, 'suite', total, { unit: 'runs' });
            Object.assign(line, { done, note });
            draw();
          },
        });
        bar?.finish();
        if (flags.json) io.out(JSON.stringify(report) + '\n');
        else if (flags.markdown) io.out(formatSuiteMarkdown(report));
        else {
          io.out(formatSuiteText(report, renderTable));
          io.out(`\noracles: ${oraclesFromCache} of ${scenarios.length} from the cache${flags.cache ? ` (${flags.cacheDir})` : ' (off)'}; sched cost ${report.schedCost}\n`);
        }
      } finally {
        bar?.finish();
        await pool.close();
      }
    });

  program
    .command('oracle')
    .description("Compute (or read from the cache) one scenario's oracles and print every candidate split")
    .requiredOption('--scenario <name|file>', 'a scenario name (evaluator/scenarios) or file')
    .option('--seed <n>', "the seed (default: the scenario's)", intOption('--seed', 0))
    .option('--threads <n>', "worker threads (default: the machine's cores; 1 runs in this thread)", intOption('--threads', 1, 64))
    .option('--cache-dir <dir>', 'where oracle results are cached', DEFAULT_CACHE_DIR)
    .option('--no-cache', 'compute without reading or writing the cache')
    .option('--json', 'print the oracle result (every candidate run, without its per-minute slices)', false)
    .action(async (flags: OracleFlags) => {
      const scenario = loadScenario(flags.scenario);
      const seed = flags.seed ?? scenario.run.seed;
      const cluster = scenarioCluster(scenario);
      const pool = new SuitePool(flags.threads ?? availableParallelism());
      try {
        let done = 0;
        let bar: ReturnType<typeof progressBar> | undefined;
        const { result, fromCache } = await computeOracles(
          { name: scenario.name, seed, contentHash: scenario.contentHash, source: scenarioSource(scenario, seed), ...cluster },
          {
            pool,
            cache: flags.cache ? new OracleCache(flags.cacheDir) : undefined,
            onRun: (r) => (bar ??= progressBar(io, 'oracle', oracleCandidates(cluster).length, { unit: 'runs' })).update(++done, r.split),
          },
        );
        bar?.finish();
        const printable = { ...result, runs: result.runs.map(({ slices: _s, ...r }) => r) };
        if (flags.json) io.out(JSON.stringify(printable) + '\n');
        else io.out(formatOracle(result) + `\n${fromCache ? 'read from the cache' : 'computed'}${flags.cache ? ` (${new OracleCache(flags.cacheDir).path(result.key)})` : ''}\n`);
      } finally {
        await pool.close();
      }
    });
}

function selectScenarios(spec: string): LoadedScenario[] {
  const refs = spec === 'all' ? listScenarios() : spec.split(',').map((s) => s.trim());
  if (refs.length === 0 || refs.some((r) => r === '')) throw new InputError(spec === 'all' ? 'no scenarios in evaluator/scenarios' : `"${spec}" names no scenario`, { field: '--scenarios' });
  const loaded = refs.map((r) => loadScenario(r));
  const names = new Set<string>();
  for (const s of loaded) {
    if (names.has(s.name)) throw new InputError(`scenario "${s.name}" is named twice`, { field: '--scenarios' });
    names.add(s.name);
  }
  return loaded;
}

function defaultSeeds(): string[] {
  const dir = join(packageRoot(), 'seeds');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => join(dir, f));
}

function formatOracle(r: OracleResult): string {
  const rows = r.runs.map((run) => [run.split, run.throughput.toFixed(3), run.ttftP95.toFixed(2), run.e2eMean.toFixed(2), run.tTotal.toFixed(1), run.drained ? 'yes' : 'no (cap)']);
  const windows = r.window.windows.map((w) => `${Math.round((w.start - r.window.from) / 60)}-${Math.round((w.end - r.window.from) / 60)} min ${w.split} (${w.completions.toFixed(0)})`);
  return (
    `scenario ${r.name}, seed ${r.seed}: ${r.candidates} candidate splits\n\n` +
    renderTable(rows, ['split', 'req/s', 'TTFT P95 s', 'E2E mean s', 'T_total s', 'drained']) +
    `\nbest static split: ${r.staticBest.split} at ${r.staticBest.throughput.toFixed(3)} req/s\n` +
    `window oracle: ${r.window.throughput.toFixed(3)} req/s (${r.window.windows.length} windows of ${r.window.windowSeconds / 60} min; best split per window after the warm-up:\n  ${windows.join(', ')})\n`
  );
}
