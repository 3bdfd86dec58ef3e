import type { Command } from 'commander';
import { evaluatePolicy, parseSchedCost, type Evaluation } from '../evaluate/index.js';
import type { CliIO } from './io.js';
import { addClusterOptions, snapshotFromFlags, type ClusterFlags } from './cluster-options.js';
import { intOption } from './options.js';
import { readPolicyFile } from './policy-file.js';
import { renderTable } from './table.js';

interface ReplayFlags extends ClusterFlags {
  policy: string;
  schedCost: string;
  cpuLimitMs: number;
  memoryLimitMb: number;
  json: boolean;
}

export function registerReplayCommand(program: Command, io: CliIO): void {
  const cmd = program
    .command('replay')
    .description('Replay a workload window under a policy (sandboxed) and print T_total, its breakdown and the metrics');
  addClusterOptions(cmd, { warmupMin: 2, minutes: 10 })
    .requiredOption('--policy <file.js>', 'the policy: a plain JS file with shouldReschedule(ctx) and schedule(ctx)')
    .option('--sched-cost <counted|measured|zero|fixed:MS>', "how the policy's scheduling time is charged", 'counted')
    .option('--cpu-limit-ms <ms>', 'CPU limit per policy call', intOption('--cpu-limit-ms', 1, 60_000), 100)
    .option('--memory-limit-mb <mb>', 'memory limit of the policy isolate', intOption('--memory-limit-mb', 8, 4096), 64)
    .option('--json', 'print one JSON object {policy, fitness, breakdown, metrics, failures, features, finalSplit, splitTimeline}', false)
    .action((flags: ReplayFlags, command: Command) => {
      const policy = readPolicyFile(flags.policy);
      const schedCost = parseSchedCost(flags.schedCost);
      const snapshot = snapshotFromFlags(flags, command);
      const evaluation = evaluatePolicy(snapshot, policy, { schedCost, sandbox: { cpuLimitMs: flags.cpuLimitMs, memoryLimitMb: flags.memoryLimitMb } });
      if (flags.json) {
        const { drained, ...rest } = evaluation;
        io.out(JSON.stringify({ ...rest, drained }) + '\n');
      } else {
        io.out(formatEvaluation(evaluation, snapshot.label));
      }
    });
}

export function formatEvaluation(e: Evaluation, label: string): string {
  const b = e.breakdown;
  const m = e.metrics;
  const rows: (string | number)[][] = [
    ['T_total (s)', e.fitness.tTotal.toFixed(2) + (e.drained ? '' : ' (work not finished within the cap)')],
    ['  sched / stale / reconfig / serve (s)', `${b.schedSeconds.toFixed(3)} / ${b.staleSeconds.toFixed(2)} / ${b.reconfigSeconds.toFixed(2)} / ${b.serveSeconds.toFixed(2)}`],
    ['  reschedules', b.reschedules],
    ['throughput (req/s)', m.throughput.toFixed(3)],
    ['TTFT mean / P95 (s)', `${m.ttft.mean.toFixed(2)} / ${m.ttft.p95.toFixed(2)}`],
    ['E2E mean / P95 (s)', `${m.e2e.mean.toFixed(2)} / ${m.e2e.p95.toFixed(2)}`],
    ['transitions (count, mean s)', `${m.transitions.count}, ${m.transitions.meanSeconds.toFixed(1)}`],
    ['final split', e.finalSplit],
    ['features: reschedules, sched ms/call, nodes/reschedule', `${e.features.rescheduleCount}, ${e.features.schedCpuMsPerCall.toFixed(4)}, ${e.features.nodesSwitchedPerReschedule.toFixed(2)}`],
    ['failures', e.failures.length ? e.failures.map((f) => `${f.kind} x${f.count} (${f.firstMessage})`).join('; ') : 'none'],
  ];
  return `policy ${e.policy} on ${label}\n\n` + renderTable(rows, ['', 'value']);
}
