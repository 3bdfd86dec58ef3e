import { join } from 'node:path';
import type { Command } from 'commander';
import { EvolutionRun, EvolveConfigSchema, type EvolveConfig, type EvolveSummary } from '../evolve/engine/index.js';
import { DEFAULT_OFFLINE_MIX } from '../evolve/mutators/index.js';
import { openLineageStore } from '../store/index.js';
import { MAX_NODES } from '../sim/index.js';
import { parseOrThrow } from '../common/validate.js';
import { packageRoot } from '../common/package-root.js';
import type { CliIO } from './io.js';
import { floatOption, intOption } from './options.js';
import { formatEvolveNote, progressBar } from './progress.js';
import { renderTable } from './table.js';
import { scenarioConfig, scenarioRefs, scenarioRunPlan } from './evolve-scenario.js';
import { seedListOption } from './evolve-options.js';
import { SCENARIO_HELP } from './scenario-option.js';
import { queueBackend } from './evolve-queue.js';
import { isGiven } from './option-source.js';

interface EvolveFlags {
  workload: string;
  scenario?: string;
  agents?: number;
  windowMin: number;
  warmupMin: number;
  nodes: number;
  nodeKind: string;
  split: string;
  mechanics: string;
  iterations: number;
  maxMinutes?: number;
  islands: number;
  batch?: number;
  threads?: number;
  pipeline: boolean;
  mutator: string;
  db?: string;
  seed: number;
  schedCost: string;
  seeds?: string;
  warmStart?: string;
  migrateEvery: number;
  exploit: number;
  explore: number;
  inspirations: number;
  candidateWallMs: number;
  cpuLimitMs: number;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  llmTimeoutMs?: number;
  llmRetries?: number;
  prompts?: string;
  windows: number;
  validateSeeds?: number[];
  validateEvery: number;
  validateTop: number;
  reference?: string;
  tuneReplays: number;
  knobReplays: number;
  trajectoryCacheMb: number;
  queue?: string;
  queueTimeout: number;
  resume: boolean;
  json: boolean;
}

export function registerEvolveCommand(program: Command, io: CliIO): void {
  program
    .command('evolve')
    .description('Offline evolution of the serving policy on a workload window: MAP-Elites islands, sandboxed parallel evaluation, SQLite lineage')
    .option('--scenario <name|file[,name|file...]>', `${SCENARIO_HELP}; several, comma-separated: every candidate is scored on each (fitness: mean T_total / the reference's); its warm-up and scored minutes are the window`)
    .option('--windows <k>', 'cut each training scenario (or the workload) into k consecutive scored windows, each a training snapshot', intOption('--windows', 1, 32), 1)
    .option('--validate-seeds <n,n,...>', 'validate elites on the same snapshots at these seeds (never trained on); the run\'s best is the best on validation', seedListOption('--validate-seeds'))
    .option('--validate-every <k>', 'validate the best elites after every k iterations (and at the end)', intOption('--validate-every', 1, 1_000_000), 10)
    .option('--validate-top <n>', 'how many of the best elites are validated each time', intOption('--validate-top', 1, 256), 8)
    .option('--reference <file>', 'policy that fitness is normalised by with several snapshots or validation (default: seeds/evolving-infra.js)')
    .option('--tune-replays <n>', 'replays per tune mutation', intOption('--tune-replays', 1, 256), 8)
    .option('--knob-replays <n>', 'replays per knob-search mutation', intOption('--knob-replays', 1, 256), 8)
    .option('--trajectory-cache-mb <mb>', "memory for recent evaluations' trajectories, which a child whose policy calls all answer as its parent's, or as another kept one's, reuses instead of simulating (0: simulate every candidate)", intOption('--trajectory-cache-mb', 0, 65_536), 256)
    .option('--workload <preset|trace.jsonl>', 'workload preset or trace file the window is taken from', 'cc')
    .option('--agents <n>', "closed-loop agents (default: the preset's)", intOption('--agents', 1, 100_000))
    .option('--window-min <m>', 'scored minutes of the window each candidate is replayed on', floatOption('--window-min', 1e-3), 10)
    .option('--warmup-min <m>', 'warm-up minutes before the window', floatOption('--warmup-min', 0), 2)
    .option('--nodes <n>', 'nodes in the cluster', intOption('--nodes', 2, MAX_NODES), 9)
    .option('--node-kind <kind[,kind...]>', 'node kind for all nodes, or one per node', 'gb300')
    .option('--split <nPmD>', 'split at the start of the window', '4P5D')
    .option('--mechanics <preset[,key=value...]>', 'data-plane mechanics of the replays', 'evolving-infra')
    .option('--iterations <n>', 'iterations (each evaluates a batch of candidates on one island)', intOption('--iterations', 0, 1_000_000), 200)
    .option('--max-minutes <m>', 'stop after this many wall-clock minutes, whichever comes first', floatOption('--max-minutes', 1e-3))
    .option('--islands <n>', 'MAP-Elites islands', intOption('--islands', 1, 64), 4)
    .option('--batch <n>', 'candidates per iteration (default: worker threads)', intOption('--batch', 1, 256))
    .option('--threads <n>', 'evaluation worker threads (default: cores)', intOption('--threads', 1, 256))
    .option('--no-pipeline', 'one batch in the pool at a time (default: the next iteration is proposed and sent while one runs)')
    .option('--mutator <spec>', 'structural | knob | knob-search | tune | crossover | llm | mix:NAME=WEIGHT,... (relative weights)', DEFAULT_OFFLINE_MIX)
    .option('--db <file>', 'lineage database (default: runs/<workload>.db)')
    .option('--seed <n>', 'seed of every random choice', intOption('--seed', 0, 2 ** 31 - 1), 1)
    .option('--sched-cost <counted|measured|zero|fixed:MS>', "how a candidate's scheduling time is charged", 'counted')
    .option('--seeds <dir>', 'folder of seed policies (the initial population)')
    .option('--warm-start <db>', 'also start from the best candidates of the latest run in this database')
    .option('--migrate-every <n>', 'ring migration period in iterations', intOption('--migrate-every', 1, 1_000_000), 10)
    .option('--exploit <ratio>', 'share of parents picked among the top elites', floatOption('--exploit', 0, 1), 0.7)
    .option('--explore <ratio>', 'share of parents picked from random cells', floatOption('--explore', 0, 1), 0.2)
    .option('--inspirations <n>', 'other elites shown to the mutator', intOption('--inspirations', 0, 16), 2)
    .option('--candidate-wall-ms <ms>', 'wall-clock limit of one candidate evaluation', intOption('--candidate-wall-ms', 100, 3_600_000), 30_000)
    .option('--cpu-limit-ms <ms>', 'CPU limit per policy call', intOption('--cpu-limit-ms', 1, 60_000), 100)
    .option('--base-url <url>', 'llm mutator: OpenAI-compatible endpoint (or OPENAI_BASE_URL)')
    .option('--api-key <key>', 'llm mutator: API key (or OPENAI_API_KEY)')
    .option('--model <name>', 'llm mutator: model (or AUTOPOIESIS_MODEL)')
    .option('--llm-timeout-ms <ms>', 'llm mutator: request timeout', intOption('--llm-timeout-ms', 1, 3_600_000))
    .option('--llm-retries <n>', 'llm mutator: retries of a failed request', intOption('--llm-retries', 0, 100))
    .option('--prompts <dir>', 'llm mutator: folder of prompt templates overriding the shipped ones')
    .option('--queue <redis://HOST:PORT/NAME>', 'send candidates as BullMQ jobs to `autopoiesis worker` processes instead of the local pool (docs/distributed.md)')
    .option('--queue-timeout <s>', 'with --queue: fail (exit 1) when no worker has been connected this long while candidates wait', floatOption('--queue-timeout', 1), 300)
    .option('--resume', 'continue the latest run in --db from its last committed iteration', false)
    .option('--json', 'print one JSON object {run, db, iterations, evaluated, failedByKind, best, seedsBest, improvementPct, validation?, archive}', false)
    .action(async (flags: EvolveFlags, command: Command) => {
      const given = (name: string) => isGiven(command, name);
      const dbName = flags.scenario && !given('workload') ? scenarioRefs(flags.scenario).map((r) => r.replace(/^.*[\\/]/, '').replace(/\.json$/, '')).join('+') : flags.workload;
      const db = flags.db ?? join('runs', `${dbName.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/\.jsonl$/, '')}.db`);
      const more = { windows: flags.windows, validateSeeds: flags.validateSeeds ?? [] };
      const onScenario = !flags.resume && flags.scenario ? scenarioConfig(flags.scenario, command, { ...flags }, more) : undefined;
      const config = flags.resume
        ? resumedConfig(db, { iterations: given('iterations') ? flags.iterations : undefined, maxMinutes: flags.maxMinutes })
        : configFrom(flags, onScenario?.fields);
      // A scenario's snapshots carry what the config's strings cannot (membership, open loop, bursts).
      const plan = onScenario?.plan ?? (config.scenario ? scenarioRunPlan(config) : undefined);
      const queue = flags.queue ? queueBackend(flags.queue, flags.queueTimeout, io) : undefined;
      const run = await EvolutionRun.open(config, db, flags.resume, { plan, backend: queue?.backend });
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      // ETA from the iterations left, or --max-minutes when that comes first.
      const bar = progressBar(io, 'evolve', config.iterations, { unit: 'iterations', deadlineMs: config.maxMinutes === undefined ? undefined : config.maxMinutes * 60_000 });
      const line = { done: 0, text: '' };
      const draw = () => bar.update(line.done, [line.text, queue?.note()].filter(Boolean).join(', '));
      if (queue) queue.onChange = draw;
      try {
        const summary = await run.run({
          signal: controller.signal,
          onIteration: (p) => {
            Object.assign(line, { done: p.iteration, text: formatEvolveNote(p) });
            draw();
          },
        });
        bar.finish();
        io.out(flags.json ? JSON.stringify({ ...summary, db }) + '\n' : formatSummary(summary, db));
      } finally {
        bar.finish();
        process.removeListener('SIGINT', onSigint);
        run.close();
      }
    });
}

/** `scenario`: the run fields a --scenario resolved to (flags given beside it applied). */
function configFrom(flags: EvolveFlags, scenario?: Partial<EvolveConfig>): EvolveConfig {
  return parseOrThrow(EvolveConfigSchema, {
    workload: flags.workload,
    agents: flags.agents,
    windowMinutes: flags.windowMin,
    warmupMinutes: flags.warmupMin,
    nodes: flags.nodes,
    nodeKinds: flags.nodeKind,
    split: flags.split,
    mechanics: flags.mechanics,
    iterations: flags.iterations,
    maxMinutes: flags.maxMinutes,
    islands: flags.islands,
    batch: flags.batch,
    threads: flags.threads,
    pipeline: flags.pipeline,
    mutator: flags.mutator,
    seed: flags.seed,
    schedCost: flags.schedCost,
    seedsDir: flags.seeds ?? join(packageRoot(), 'seeds'),
    warmStart: flags.warmStart,
    migrationEvery: flags.migrateEvery,
    exploitRatio: flags.exploit,
    exploreRatio: flags.explore,
    inspirations: flags.inspirations,
    candidateWallMs: flags.candidateWallMs,
    cpuLimitMs: flags.cpuLimitMs,
    windows: flags.windows,
    validateSeeds: flags.validateSeeds ?? [],
    validateEvery: flags.validateEvery,
    validateTop: flags.validateTop,
    reference: flags.reference,
    tuneReplays: flags.tuneReplays,
    knobReplays: flags.knobReplays,
    trajectoryCacheMb: flags.trajectoryCacheMb,
    llm: { baseURL: flags.baseUrl, apiKey: flags.apiKey, model: flags.model, timeoutMs: flags.llmTimeoutMs, maxRetries: flags.llmRetries, templatesDir: flags.prompts },
    ...scenario,
  }, { field: 'evolve' });
}

/** A resumed run keeps its stored settings; only the limits (--iterations, --max-minutes) can be given anew. */
function resumedConfig(db: string, limits: { iterations?: number; maxMinutes?: number }): EvolveConfig {
  const store = openLineageStore(db, { create: false });
  try {
    const run = store.latestRun();
    const stored = parseOrThrow(EvolveConfigSchema, run?.config ?? {}, { file: db, field: 'runs.config' });
    return { ...stored, iterations: limits.iterations ?? stored.iterations, maxMinutes: limits.maxMinutes ?? stored.maxMinutes };
  } finally {
    store.close();
  }
}

function formatSummary(s: EvolveSummary, db: string): string {
  const f = (x: number) => (s.fitnessUnit === 'ratio' ? `fitness ${x.toFixed(4)} x reference` : `T_total ${x.toFixed(2)} s`);
  const rows: (string | number)[][] = [
    ['run', s.run],
    ['database', db],
    ['iterations', s.iterations],
    ['candidates evaluated', s.evaluated],
    ['failed or rejected', Object.entries(s.failedByKind).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'],
    ['best on training', s.best ? `#${s.best.id}, ${f(s.best.fitness)}` : '-'],
    ['best seed', s.seedsBest ? `#${s.seedsBest.id}, ${f(s.seedsBest.fitness)}` : '-'],
    ['improvement over the best seed', s.improvementPct === null ? '-' : `${s.improvementPct.toFixed(2)} %`],
  ];
  const v = s.validation;
  if (v) {
    rows.push(
      ['best on validation (the run\'s best)', v.best ? `#${v.best.id}, ${v.best.fitness.toFixed(4)} x reference` : '-'],
      ['best seed on validation', v.seedsBest ? `#${v.seedsBest.id}, ${v.seedsBest.fitness.toFixed(4)} x reference` : '-'],
      ['improvement on validation', v.improvementPct === null ? '-' : `${v.improvementPct.toFixed(2)} %`],
      ['candidates validated', v.validated],
    );
  }
  rows.push(['archive', `${s.archive.occupiedCells} cells occupied (per island: ${s.archive.perIsland.join(', ')})`]);
  const shown = v?.best?.id ?? s.best?.id;
  return renderTable(rows) + `\nlineage: autopoiesis lineage --db ${db}${shown ? ` --ancestry ${shown}` : ''}\n`;
}
