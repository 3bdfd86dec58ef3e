/**
 * Memory soak of continuous mode (issue #14): runs the real `serve` command
 * in this process (runCli, as bin/autopoiesis.js does) on the cc workload
 * and prints the process's RSS and V8 heap after every simulated hour. The
 * status lines `serve` writes off a terminal (one per ten simulated minutes)
 * tell it where the simulation is; memory is read when one lands on an hour.
 *
 *   npm run bench:soak -- [--hours 6] [--agents 126] [--live] [--speed 0] [--gc]
 *
 * Default: 6 simulated hours, frozen (no evolution), as fast as possible.
 * `--hours 24` is the day of the issue; `--live` evolves in the background
 * (worker threads: their memory is in the RSS too). `--gc` collects garbage
 * before each reading, so that "heap used" is what is retained (RSS then
 * reads lower than a plain run's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runCli } from '../src/cli/main.js';
import { benchFlags } from './args.js';

const flags = benchFlags('soak', 'memory of a long serve run, hour by hour', {
  hours: { type: 'string', help: 'simulated hours (default 6)' },
  agents: { type: 'string', help: 'agents (default 126)' },
  speed: { type: 'string', help: 'simulated seconds per wall second, 0 = as fast as possible (default 0)' },
  live: { type: 'boolean', help: 'evolve while serving (default: --frozen)' },
  gc: { type: 'boolean', help: 'collect garbage before each reading' },
});
function arg(name: 'hours' | 'agents' | 'speed', fallback: string): string {
  return flags[name] ?? fallback;
}

const hours = Number(arg('hours', '6'));
const agents = arg('agents', '126');
const speed = arg('speed', '0');
const live = flags.live;
const collect = flags.gc ? (setFlagsFromString('--expose-gc'), runInNewContext('gc') as () => void) : () => {};
if (!(hours > 0)) throw new Error(`--hours must be a number > 0, got ${arg('hours', '')}`);

const dir = mkdtempSync(join(tmpdir(), 'soak-'));
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const args = [
  'serve', '--workload', 'cc', '--agents', agents, '--speed', speed, '--duration-min', String(hours * 60),
  '--db', join(dir, 'soak.db'), '--staging', join(dir, 'staging'), ...(live ? [] : ['--frozen']), '--json',
];
console.log(`autopoiesis ${args.map((a) => (a.startsWith(dir) ? `<tmp>${a.slice(dir.length)}` : a)).join(' ')}`);
console.log('sim hour   RSS MB   heap used MB   external MB   wall s');

const started = performance.now();
let out = '';
let lastHour = 0;
const rows: { hour: number; rss: number; heap: number }[] = [];
const sample = (hour: number) => {
  collect();
  const m = process.memoryUsage();
  rows.push({ hour, rss: m.rss, heap: m.heapUsed });
  console.log(`${String(hour).padStart(8)}   ${mb(m.rss).padStart(6)}   ${mb(m.heapUsed).padStart(12)}   ${mb(m.external).padStart(11)}   ${((performance.now() - started) / 1000).toFixed(0).padStart(6)}`);
};
const code = await runCli(args, {
  errIsTTY: false,
  out: (text) => {
    out += text;
  },
  err: (text) => {
    const m = /^sim (\d+):(\d+):(\d+) \|/.exec(text);
    if (!m) return void process.stderr.write(text);
    const hour = Number(m[1]);
    if (m[2] === '00' && m[3] === '00' && hour > lastHour) {
      lastHour = hour;
      sample(hour);
    }
  },
});
if (code !== 0) throw new Error(`serve exited with ${code}`);
sample(hours);
const report = JSON.parse(out) as { droppedRequests: number; metrics: { throughput: number; requestsCompleted: number } };
const peak = process.resourceUsage().maxRSS * 1024;
const afterFirst = rows.filter((r) => r.hour >= 1);
const growth = afterFirst.length > 1 ? afterFirst[afterFirst.length - 1]!.rss - afterFirst[0]!.rss : 0;
console.log(`peak RSS ${mb(peak)} MB; RSS change from hour 1 to the end ${growth >= 0 ? '+' : ''}${mb(growth)} MB; ${report.metrics.requestsCompleted} requests completed, ${report.droppedRequests} dropped`);
rmSync(dir, { recursive: true, force: true });
