import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { evaluatePolicy, parseSchedCost, type Evaluation } from '../evaluate/index.js';
import { packageRoot } from '../common/package-root.js';
import type { CliIO } from './io.js';
import { addClusterOptions, snapshotFromFlags, type ClusterFlags } from './cluster-options.js';
import { readPolicyFile } from './policy-file.js';
import { progressBar } from './progress.js';
import { renderTable } from './table.js';

interface CompareFlags extends ClusterFlags {
  policies?: string[];
  schedCost: string;
  json: boolean;
}

export function registerCompareCommand(program: Command, io: CliIO): void {
  const cmd = program.command('compare').description('Replay the same workload window under several policies and print them side by side');
  addClusterOptions(cmd, { warmupMin: 2, minutes: 10 })
    .option('--policies <files...>', 'policy files (default: every seeds/*.js)')
    .option('--sched-cost <counted|measured|zero|fixed:MS>', "how the policies' scheduling time is charged", 'counted')
    .option('--json', 'print one JSON object {snapshot, results: [...]} ', false)
    .action((flags: CompareFlags, command: Command) => {
      const files = flags.policies?.length ? flags.policies : defaultSeeds();
      const policies = files.map(readPolicyFile);
      const schedCost = parseSchedCost(flags.schedCost);
      const snapshot = snapshotFromFlags(flags, command);
      const bar = progressBar(io, 'compare', policies.length);
      const results: Evaluation[] = [];
      for (const p of policies) {
        results.push(evaluatePolicy(snapshot, p, { schedCost }));
        bar.update(results.length, p.name);
      }
      bar.finish();
      if (flags.json) io.out(JSON.stringify({ snapshot: snapshot.label, results }) + '\n');
      else io.out(formatComparison(results, snapshot.label));
    });
}

function defaultSeeds(): string[] {
  const dir = join(packageRoot(), 'seeds');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => join(dir, f));
}

function formatComparison(results: Evaluation[], label: string): string {
  const rows = results.map((e) => [
    e.policy,
    e.fitness.tTotal.toFixed(1),
    e.breakdown.schedSeconds.toFixed(3),
    e.breakdown.staleSeconds.toFixed(2),
    e.breakdown.reconfigSeconds.toFixed(2),
    e.breakdown.serveSeconds.toFixed(1),
    e.metrics.throughput.toFixed(2),
    `${e.metrics.ttft.mean.toFixed(2)}/${e.metrics.ttft.p95.toFixed(2)}`,
    `${e.metrics.e2e.mean.toFixed(2)}/${e.metrics.e2e.p95.toFixed(2)}`,
    e.metrics.transitions.count,
    e.finalSplit,
    e.failures.reduce((s, f) => s + f.count, 0),
  ]);
  return (
    `workload ${label}\n\n` +
    renderTable(rows, ['policy', 'T_total', 'sched', 'stale', 'reconfig', 'serve', 'req/s', 'TTFT mean/P95', 'E2E mean/P95', 'transitions', 'final split', 'failures'])
  );
}
