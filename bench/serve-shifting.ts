/**
 * The continuous-mode experiment (issue #6): the `shifting` preset
 * (decode-heavy, then mixed, then prefill-heavy, one hour each) served by
 * `serve --frozen` and by `serve` from the same starting policy
 * (seeds/evolving-infra.js), over the same simulated hours, and compared per
 * hour. Both run the real command (bin/autopoiesis.js) as child processes,
 * one after the other, and the table below is printed from their --json.
 *
 *   npm run bench:serve -- [--speed 20] [--hours 3] [--cycle-max-min 1] [--agents N]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/common/package-root.js';
import { benchFlags } from './args.js';

const flags = benchFlags('serve', '`serve --frozen` then `serve` on the shifting preset, compared hour by hour', {
  speed: { type: 'string', help: 'simulated seconds per wall second of the live run (default 20)' },
  hours: { type: 'string', help: 'simulated hours (default 3)' },
  'cycle-max-min': { type: 'string', help: 'wall limit per evolution cycle, minutes (default 1)' },
  agents: { type: 'string', help: "agents (default: the preset's)" },
});
function arg(name: 'speed' | 'hours' | 'cycle-max-min' | 'agents', fallback: string): string {
  return flags[name] || fallback;
}

const speed = arg('speed', '20');
const hours = Number(arg('hours', '3'));
const cycleMax = arg('cycle-max-min', '1');
const agents = arg('agents', '');
const dir = mkdtempSync(join(tmpdir(), 'serve-shifting-'));

interface Report {
  run: number;
  simMinutes: number;
  cycles: number;
  cyclesByStatus: Record<string, number>;
  deployments: number;
  rollbacks: number;
  droppedRequests: number;
  metrics: { throughput: number; ttft: { p95: number }; e2e: { mean: number } };
  segments: { from: number; to: number; throughput: number | null; ttftP95: number | null; e2eMean: number | null; split: string }[];
}

function serve(frozen: boolean): { report: Report; command: string; wallSeconds: number } {
  const args = [
    // A frozen run has no cycles, so pacing cannot change it: it runs as fast as it can.
    'serve', '--workload', 'shifting', ...(agents ? ['--agents', agents] : []), '--speed', frozen ? '0' : speed, '--duration-min', String(hours * 60),
    '--segment-min', '60', '--cycle-max-min', cycleMax, '--db', join(dir, frozen ? 'frozen.db' : 'live.db'), '--staging', join(dir, 'staging'),
    ...(frozen ? ['--frozen'] : []), '--json',
  ];
  const command = `autopoiesis ${args.map((a) => (a.startsWith(dir) ? `<tmp>${a.slice(dir.length)}` : a)).join(' ')}`;
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--no-node-snapshot', join(packageRoot(), 'bin', 'autopoiesis.js'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`serve exited with ${run.status}`);
  return { report: JSON.parse(run.stdout) as Report, command, wallSeconds: (performance.now() - started) / 1000 };
}

const fmt = (x: number | null, d: number) => (x === null ? '-' : x.toFixed(d));
const frozen = serve(true);
const live = serve(false);
console.log(`frozen: ${frozen.command} (${frozen.wallSeconds.toFixed(0)} s wall)`);
console.log(`live:   ${live.command} (${live.wallSeconds.toFixed(0)} s wall)`);
console.log(`live: ${live.report.cycles} cycles (${Object.entries(live.report.cyclesByStatus).map(([k, n]) => `${k} ${n}`).join(', ')}), ${live.report.deployments} deployments, ${live.report.rollbacks} rollbacks; dropped requests frozen ${frozen.report.droppedRequests}, live ${live.report.droppedRequests}`);
console.log('');
console.log('| hour | frozen req/s | serve req/s | frozen TTFT P95 s | serve TTFT P95 s | frozen E2E mean s | serve E2E mean s | frozen split | serve split |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (let i = 0; i < frozen.report.segments.length; i++) {
  const f = frozen.report.segments[i]!;
  const l = live.report.segments[i];
  console.log(
    `| ${(f.from / 3600).toFixed(0)}-${(f.to / 3600).toFixed(0)} h | ${fmt(f.throughput, 3)} | ${fmt(l?.throughput ?? null, 3)} | ${fmt(f.ttftP95, 2)} | ${fmt(l?.ttftP95 ?? null, 2)} | ${fmt(f.e2eMean, 2)} | ${fmt(l?.e2eMean ?? null, 2)} | ${f.split} | ${l?.split ?? '-'} |`,
  );
}
const fm = frozen.report.metrics;
const lm = live.report.metrics;
console.log(`| all | ${fm.throughput.toFixed(3)} | ${lm.throughput.toFixed(3)} | ${fm.ttft.p95.toFixed(2)} | ${lm.ttft.p95.toFixed(2)} | ${fm.e2e.mean.toFixed(2)} | ${lm.e2e.mean.toFixed(2)} | | |`);
