import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError, UsageError } from '../common/errors.js';
import { parseOrThrow } from '../common/validate.js';
import { parseSchedCost, type Snapshot } from '../evaluate/index.js';
import { EvolveConfigSchema, stringsPlan } from '../evolve/engine/index.js';
import { evolveSection, readSuiteFile, renderPage, ReportQueries, serveData, type ServeData } from '../report/index.js';
import { openLineageStore, type LineageStore, type RunRecord } from '../store/index.js';
import { unifiedDiff } from './diff.js';
import { scenarioRunPlan } from './evolve-scenario.js';
import { writeFileAtomic, type CliIO } from './io.js';
import { intOption } from './options.js';
import { SERVE_SETTINGS_KEY, ServeSettingsSchema } from './serve-settings.js';
import { replayOnSnapshot, reserve } from './report-replay.js';

interface ReportFlags {
  db?: string;
  run?: number;
  compareDb?: string;
  compareRun?: number;
  suite?: string;
  output: string;
  open: boolean;
}

/** The mode a serve run stores in its config (src/controlplane/control-plane.ts). */
const SERVE_MODE = 'serve';

export function registerReportCommand(program: Command, io: CliIO): void {
  program
    .command('report')
    .description('Write one self-contained HTML report of an evolve or serve run (charts, lineage, replays) and/or of a suite --json file')
    .option('--db <file>', 'lineage database of the run')
    .option('--run <id>', 'run id (default: the latest)', intOption('--run', 1))
    .option('--compare-db <file>', 'a second serve run drawn beside the first (e.g. the --frozen baseline)')
    .option('--compare-run <id>', 'run id in --compare-db (default: its latest)', intOption('--compare-run', 1))
    .option('--suite <file>', 'a `suite --json` output file: the table and bars against both oracles')
    .option('-o, --output <file>', 'the HTML file to write', 'report.html')
    .option('--open', 'open the report in the default browser', false)
    .action((flags: ReportFlags) => {
      if (flags.compareDb && !flags.db) throw new UsageError('--compare-db needs --db (the run to compare it with)');
      if (!flags.db && !flags.suite) throw new UsageError('give --db FILE (an evolve or serve run) and/or --suite FILE (a suite --json output)');
      // Everything is read and checked before anything is written: bad input leaves no file.
      const payload: Record<string, unknown> = {};
      const titles: string[] = [];
      if (flags.suite) {
        payload.suite = { file: flags.suite, ...readSuiteFile(flags.suite) };
        titles.push('suite');
      }
      // The second run is checked before the first one's (slow) replay.
      if (flags.compareDb) withStore(flags.compareDb, (other) => serveRunOf(other, flags.compareDb!, flags.compareRun));
      if (flags.db) {
        withStore(flags.db, (store) => {
          const run = pickRun(store, flags.db!, flags.run, '--run');
          if (run.config.mode === SERVE_MODE) {
            const runs = [serveOf(store, flags.db!, run)];
            if (flags.compareDb) {
              withStore(flags.compareDb, (other) => runs.push(serveOf(other, flags.compareDb!, serveRunOf(other, flags.compareDb!, flags.compareRun))));
            }
            payload.serve = runs;
            titles.unshift(`serve run ${run.id}`);
          } else {
            if (flags.compareDb) throw new UsageError('--compare-db draws a second serve run; run ' + run.id + ' is an evolve run');
            payload.evolve = evolveOf(store, flags.db!, run);
            titles.unshift(`evolve run ${run.id}`);
          }
        });
      }
      const html = renderPage(`Autopoiesis report: ${titles.join(', ')}`, payload);
      writeFileAtomic(flags.output, html);
      io.out(`wrote ${flags.output} (${Math.round(html.length / 1024)} KB)\n`);
      if (flags.open) openInBrowser(resolve(flags.output), io);
    });
}

function withStore(path: string, fn: (store: LineageStore) => void): void {
  const store = openLineageStore(path, { readonly: true });
  try {
    fn(store);
  } finally {
    store.close();
  }
}

function pickRun(store: LineageStore, db: string, id: number | undefined, field: string): RunRecord {
  const run = id === undefined ? store.latestRun() : store.getRun(id);
  if (!run) throw new InputError(id === undefined ? 'the database has no run' : `no run ${id}`, { file: db, field });
  return run;
}

function serveRunOf(store: LineageStore, db: string, id: number | undefined): RunRecord {
  const run = pickRun(store, db, id, '--compare-run');
  if (run.config.mode !== SERVE_MODE) throw new InputError(`run ${run.id} is not a serve run`, { file: db, field: '--compare-run' });
  return run;
}

function evolveOf(store: LineageStore, db: string, run: RunRecord) {
  const config = parseOrThrow(EvolveConfigSchema, run.config, { file: db, field: `runs.${run.id}.config` });
  let snapshot: Snapshot | null = null;
  let trained = 1;
  let note: string | null = null;
  try {
    // The run's training snapshots, rebuilt as `evolve --resume` rebuilds them; the replays use the first.
    const plan = config.scenario ? scenarioRunPlan(config) : stringsPlan(config);
    snapshot = plan.train[0] ?? null;
    trained = plan.train.length;
  } catch (error) {
    // The lineage is still worth drawing when the snapshot cannot be rebuilt (a scenario file moved or changed).
    if (!(error instanceof InputError || error instanceof UsageError)) throw error;
    note = `The run's snapshot could not be rebuilt, so nothing was replayed: ${error.message}`;
  }
  const queries = new ReportQueries(db);
  try {
    const summary = `${config.scenario ? `scenario ${config.scenario.ref}` : `workload ${config.workload}`}${config.agents ? `, ${config.agents} agents` : ''}, ${config.nodes} nodes (${config.nodeKinds}) from ${config.split}, ${config.warmupMinutes} + ${config.windowMinutes} min window, mechanics ${config.mechanics}, mutator ${config.mutator}, seed ${config.seed}`;
    return evolveSection(
      store,
      queries,
      db,
      run,
      {
        islands: config.islands,
        summary,
        // With several training snapshots the fitness is the mean ratio of T_total to the reference policy's (src/evolve/engine/scorer.ts).
        fitnessUnit: trained > 1 ? `T_total / reference, mean of ${trained} snapshots` : 'T_total (s)',
        trainedSnapshots: trained,
      },
      snapshot,
      note,
      unifiedDiff,
      replayOnSnapshot({ schedCost: parseSchedCost(config.schedCost), sandbox: { cpuLimitMs: config.cpuLimitMs, memoryLimitMb: config.memoryLimitMb } }),
    );
  } finally {
    queries.close();
  }
}

function serveOf(store: LineageStore, db: string, run: RunRecord): ServeData {
  const state = store.loadRunState(run.id);
  if (state[SERVE_SETTINGS_KEY] === undefined) throw new InputError(`serve run ${run.id} has no saved settings`, { file: db, field: `run_state.${SERVE_SETTINGS_KEY}` });
  const settings = parseOrThrow(ServeSettingsSchema, state[SERVE_SETTINGS_KEY], { file: db, field: `run_state.${SERVE_SETTINGS_KEY}` });
  // How far the run served: all of it when finished, else the simulated time it saved last.
  const until = run.status === 'finished' || typeof state.simSeconds !== 'number' ? settings.durationMinutes * 60 : state.simSeconds;
  return serveData(store, db, run, settings, reserve(store, settings, store.listDeployments(run.id), until));
}

/** Best effort: the report is written either way; a machine without a desktop opener gets one line saying so. */
function openInBrowser(path: string, io: CliIO): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [path]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', path]] : ['xdg-open', [path]];
  const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
  child.on('error', () => io.err(`autopoiesis: could not start ${cmd} to open the report; open ${path} in a browser\n`));
  child.unref();
}
