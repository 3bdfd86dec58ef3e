import { join } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import { parseOrThrow } from '../common/validate.js';
import { expandNodeKinds, MAX_NODES } from '../sim/index.js';
import type { CliIO } from './io.js';
import { floatOption, intOption } from './options.js';
import { drawMode } from './progress.js';
import { readPolicyFile } from './policy-file.js';
import { ServeSettingsSchema } from './serve-settings.js';
import { scenarioServeFields } from './serve-scenario.js';
import { SCENARIO_FLAGS, SCENARIO_HELP } from './scenario-option.js';
import { runServe, type ServeReport, type ServeStatus } from './serve-session.js';
import { renderTable } from './table.js';
import { queueBackend } from './evolve-queue.js';
import { isGiven } from './option-source.js';

interface ServeFlags {
  workload?: string;
  scenario?: string;
  agents?: number;
  nodes: number;
  nodeKind: string;
  split: string;
  mechanics: string;
  seed: number;
  speed: number;
  durationMin: number;
  segmentMin: number;
  windowMin: number;
  warmupMin: number;
  cycleMaxMin: number;
  margin: number;
  validateWindow: boolean;
  mutator: string;
  islands: number;
  threads?: number;
  policy?: string;
  db: string;
  staging: string;
  rollbackAfter: number;
  cpuLimitMs: number;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  llmTimeoutMs?: number;
  frozen: boolean;
  resume: boolean;
  json: boolean;
  queue?: string;
  queueTimeout: number;
}

export function registerServeCommand(program: Command, io: CliIO): void {
  program
    .command('serve')
    .description('Serve a workload paced against the clock while evolving the policy in the background and hot-swapping winners (continuous mode)')
    .option(SCENARIO_FLAGS, `${SCENARIO_HELP} (served for its warm-up + scored minutes unless --duration-min)`)
    .option('--workload <preset|trace.jsonl>', 'workload preset (cc, putnam, osworld, shifting) or trace file (required unless --scenario or --resume)')
    .option('--agents <n>', "closed-loop concurrent agents (default: the preset's)", intOption('--agents', 1, 100_000))
    .option('--nodes <n>', 'nodes in the cluster', intOption('--nodes', 2, MAX_NODES), 9)
    .option('--node-kind <kind[,kind...]>', 'node kind for all nodes, or one per node', 'gb300')
    .option('--split <nPmD>', 'split at the start', '4P5D')
    .option('--mechanics <preset[,key=value...]>', 'data-plane mechanics', 'evolving-infra')
    .option('--seed <n>', 'seed of the workload and of evolution', intOption('--seed', 0, 2 ** 31 - 1), 1)
    .option('--speed <x>', 'simulated seconds per real second (0: as fast as possible)', floatOption('--speed', 0), 60)
    .option('--duration-min <m>', 'simulated minutes to serve', floatOption('--duration-min', 1e-3), 60)
    .option('--segment-min <m>', 'simulated minutes per reported segment', floatOption('--segment-min', 1e-3), 60)
    .option('--window-min <m>', 'scored minutes of each snapshot the control plane evolves on', floatOption('--window-min', 1e-3), 10)
    .option('--warmup-min <m>', 'warm-up minutes replayed before each snapshot window', floatOption('--warmup-min', 0), 2)
    .option('--cycle-max-min <m>', 'wall-clock minutes one evolution cycle may take', floatOption('--cycle-max-min', 1e-3), 5)
    .option('--margin <fraction>', 'stage a winner only if its T_total beats the deployed policy by this fraction', floatOption('--margin', 0, 1), 0.02)
    .option('--no-validate-window', 'stage on the training snapshot alone (default: the winner must also beat the deployed policy by the margin on the window before it)')
    .option('--mutator <spec>', 'structural | llm | mix:llm=0.7,structural=0.3', 'structural')
    .option('--islands <n>', 'MAP-Elites islands per cycle', intOption('--islands', 1, 64), 4)
    .option('--threads <n>', 'evaluation worker threads (default: cores - 1)', intOption('--threads', 1, 256))
    .option('--policy <file.js>', 'the starting policy (default: seeds/evolving-infra.js)')
    .option('--db <file>', 'lineage database', 'runs/live.db')
    .option('--staging <dir>', 'where winners are staged for the data plane', 'policies/staging')
    .option('--rollback-after <k>', 'failed reschedule attempts in a row (a monitoring call and the plan it asks for) before a new policy is rolled back', intOption('--rollback-after', 1, 1000), 3)
    .option('--cpu-limit-ms <ms>', 'CPU limit per policy call', intOption('--cpu-limit-ms', 1, 60_000), 100)
    .option('--base-url <url>', 'llm mutator: OpenAI-compatible endpoint (or OPENAI_BASE_URL)')
    .option('--api-key <key>', 'llm mutator: API key (or OPENAI_API_KEY)')
    .option('--model <name>', 'llm mutator: model (or AUTOPOIESIS_MODEL)')
    .option('--llm-timeout-ms <ms>', 'llm mutator: request timeout', intOption('--llm-timeout-ms', 1, 3_600_000))
    .option('--frozen', 'never replace the starting policy (no evolution): the comparison baseline', false)
    .option('--resume', 'continue the latest serve run in --db (after a kill): same settings, --duration-min and --speed may be given anew', false)
    .option('--queue <redis://HOST:PORT/NAME>', "send the control plane's candidate evaluations as BullMQ jobs to `autopoiesis worker` processes (docs/distributed.md)")
    .option('--queue-timeout <s>', 'with --queue: a cycle fails (and the loop backs off) when no worker has been connected this long while candidates wait', floatOption('--queue-timeout', 1), 300)
    .option('--json', 'print one JSON object at the end: {run, db, simMinutes, cycles, deployments, rollbacks, droppedRequests, metrics, segments, ...}', false)
    .action(async (flags: ServeFlags, command: Command) => {
      const given = (name: string) => isGiven(command, name);
      const settings = flags.resume ? undefined : settingsFrom(flags, command);
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const queue = flags.queue ? queueBackend(flags.queue, flags.queueTimeout, io, 'serve') : undefined;
      const line = statusLine(io, () => queue?.note() ?? '');
      try {
        const report = await runServe({
          dbPath: flags.db,
          resume: flags.resume,
          settings,
          overrides: { durationMinutes: given('durationMin') ? flags.durationMin : undefined, speed: given('speed') ? flags.speed : undefined },
          controlPlane: {
            windowMinutes: flags.windowMin,
            warmupMinutes: flags.warmupMin,
            cycleMaxMinutes: flags.cycleMaxMin,
            margin: flags.margin,
            validateWindow: flags.validateWindow,
            mutator: flags.mutator,
            islands: flags.islands,
            threads: flags.threads,
            seed: flags.seed,
            cpuLimitMs: flags.cpuLimitMs,
            // Cycles wait for the window to fill before they start; a failure later backs off at most a minute.
            maxBackoffSeconds: 60,
            llm: { baseURL: flags.baseUrl, apiKey: flags.apiKey, model: flags.model, timeoutMs: flags.llmTimeoutMs },
          },
          stagingDir: flags.staging,
          signal: controller.signal,
          onStatus: line.update,
          log: (text) => line.log(text),
          backend: queue?.backend,
        });
        line.finish();
        io.out(flags.json ? JSON.stringify(report) + '\n' : formatReport(report));
      } finally {
        line.finish();
        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
      }
    });
}

function settingsFrom(flags: ServeFlags, command: Command) {
  const scenario = flags.scenario ? scenarioServeFields(flags.scenario, command, { ...flags }) : undefined;
  if (!flags.workload && !scenario) throw new UsageError('give --workload or --scenario (unless --resume)');
  // The split, mechanics, workload and policy are checked by runServe before the database is opened; this check is here for its flag name.
  if (!scenario) expandNodeKinds(flags.nodeKind, flags.nodes, '--node-kind');
  const policy = readPolicyFile(flags.policy ?? join(packageRoot(), 'seeds', 'evolving-infra.js'));
  return parseOrThrow(
    ServeSettingsSchema,
    {
      workload: flags.workload,
      agents: flags.agents,
      nodes: flags.nodes,
      nodeKinds: flags.nodeKind,
      split: flags.split,
      mechanics: flags.mechanics,
      seed: flags.seed,
      speed: flags.speed,
      durationMinutes: flags.durationMin,
      segmentMinutes: flags.segmentMin,
      policyName: policy.name,
      policyCode: policy.source,
      frozen: flags.frozen,
      rollbackAfter: flags.rollbackAfter,
      cpuLimitMs: flags.cpuLimitMs,
      ...scenario,
    },
    { field: 'serve' },
  );
}

/**
 * The live status line on a terminal (redrawn in place), and log lines above
 * it. Off a terminal (or `--progress lines`): log lines only, plus one status
 * line per simulated ten minutes, so a log file shows progress without
 * flooding; `--progress none`: the log lines alone.
 */
function statusLine(io: CliIO, queueNote: () => string) {
  const mode = drawMode(io, 'lines');
  let drawn = false;
  let lastDraw = 0;
  let nextPlain = 0;
  return {
    update(s: ServeStatus) {
      const note = queueNote();
      const text = formatStatus(s) + (note ? ` | ${note}` : '');
      if (mode === 'bar') {
        const now = Date.now();
        if (now - lastDraw < 200) return;
        lastDraw = now;
        drawn = true;
        io.err(`\r${text}\x1b[K`);
      } else if (mode === 'lines' && s.simSeconds >= nextPlain) {
        nextPlain = s.simSeconds + 600;
        io.err(text + '\n');
      }
    },
    log(text: string) {
      io.err(drawn ? `\r\x1b[K${text}\n` : `${text}\n`);
    },
    finish() {
      if (drawn) io.err('\r\x1b[K');
      drawn = false;
    },
  };
}

export function formatStatus(s: ServeStatus): string {
  const t = Math.floor(s.simSeconds);
  const clock = `${String(Math.floor(t / 3600)).padStart(2, '0')}:${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}`;
  const minute = s.lastMinute ? `${s.lastMinute.throughput.toFixed(2)} req/s, TTFT p95 ${s.lastMinute.ttftP95 === null ? '-' : `${s.lastMinute.ttftP95.toFixed(2)} s`}` : 'first minute';
  const policy = s.deployed.candidateId !== null ? `#${s.deployed.candidateId}` : s.deployed.name;
  const cycle = s.cycle
    ? `cycle ${s.cycle.cycleId} it ${s.cycle.iteration}, best ${s.cycle.bestFitness === null ? '-' : `${s.cycle.bestFitness.toFixed(1)} s`}`
    : `${s.cyclesDone} cycle(s) done`;
  return `sim ${clock} | ${s.split} | ${minute} | policy ${policy} | ${cycle}${s.lagMs > 1000 ? ` | ${(s.lagMs / 1000).toFixed(1)} s behind` : ''}`;
}

function formatReport(r: ServeReport): string {
  const rows: (string | number)[][] = [
    ['run', `${r.run}${r.frozen ? ' (frozen)' : ''}, ${r.stop}`],
    ['database', r.db],
    ['simulated minutes', r.simMinutes],
    ['cycles', `${r.cycles} (${Object.entries(r.cyclesByStatus).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'})`],
    ['deployments', `${r.deployments} (${r.rollbacks} rolled back, ${r.rejected} staged but rejected)`],
    ['dropped requests', r.droppedRequests],
    ['throughput', `${r.metrics.throughput.toFixed(3)} req/s`],
    ['TTFT mean / P95', `${r.metrics.ttft.mean.toFixed(2)} / ${r.metrics.ttft.p95.toFixed(2)} s`],
    ['E2E mean / P95', `${r.metrics.e2e.mean.toFixed(2)} / ${r.metrics.e2e.p95.toFixed(2)} s`],
  ];
  const segments = r.segments.map((s) => [
    `${(s.from / 60).toFixed(0)}-${(s.to / 60).toFixed(0)} min`,
    s.throughput === null ? '-' : s.throughput.toFixed(3),
    s.ttftP95 === null ? '-' : s.ttftP95.toFixed(2),
    s.e2eMean === null ? '-' : s.e2eMean.toFixed(2),
    s.split,
  ]);
  const policies = r.policies.map((s) => [`${(s.from / 60).toFixed(1)}-${(s.to / 60).toFixed(1)} min`, s.policy.candidateId === null ? s.policy.name : `#${s.policy.candidateId}`, s.throughput === null ? '-' : s.throughput.toFixed(3)]);
  return (
    renderTable(rows) +
    '\n' +
    renderTable([['segment', 'req/s', 'TTFT P95 s', 'E2E mean s', 'split at end'], ...segments]) +
    '\n' +
    renderTable([['served', 'policy', 'req/s'], ...policies]) +
    `\nlineage: autopoiesis lineage --db ${r.db}\n`
  );
}
