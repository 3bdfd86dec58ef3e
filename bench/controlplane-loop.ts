/**
 * Main-thread responsiveness during an evolution cycle: the cycle's
 * evaluations run in worker threads, so the thread that serves (the data
 * plane's paced loop) should keep its timing. Prints the event-loop delay
 * (p50, p99, max) and utilisation during one cycle, and the same delay with
 * no cycle running (what the machine's load alone costs). Target: p99 under
 * 50 ms, or within 25 ms of the idle p99 on a loaded machine; utilisation
 * under 30%. (Moved here from the test suite: it is a speed figure.)
 * Run: npm run bench:loop
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { packageRoot } from '../src/common/package-root.js';
import { ControlPlane } from '../src/controlplane/index.js';
import { buildSnapshotFromStrings } from '../src/evaluate/index.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-loop-'));
const seeds = join(dir, 'seeds');
const root = packageRoot();
for (const f of ['evolving-infra.js', 'static-4p5d.js', 'greedy.js']) {
  const code = readFileSync(join(root, 'seeds', f), 'utf8');
  mkdirpWrite(join(seeds, f), code);
}
const bad = readFileSync(join(root, 'seeds', 'static-4p5d.js'), 'utf8').replace('const PREFILL_NODES = 4;', 'const PREFILL_NODES = 1;');
const snapshot = buildSnapshotFromStrings({ workload: 'cc', agents: 32, nodes: 9, split: '4P5D', nodeKinds: 'gb300', mechanics: 'evolving-infra', warmupMinutes: 0.5, minutes: 1, seed: 9 });

const cp = await ControlPlane.open({
  dbPath: join(dir, 'serve.db'),
  config: { threads: 1, batch: 2, iterationsPerCycle: 4, islands: 2, mutator: 'structural', cpuLimitMs: 1000, schedCost: 'fixed:1', seedsDir: seeds, stagingDir: join(dir, 'staging') },
  snapshot: () => snapshot,
  deployed: () => ({ name: 'static-1p8d', code: bad, candidateId: null }),
  stage: () => undefined,
});
const ms = (ns: number) => ns / 1e6;
const idle = monitorEventLoopDelay({ resolution: 5 });
idle.enable();
await new Promise((r) => setTimeout(r, 1000));
idle.disable();
const busy = monitorEventLoopDelay({ resolution: 5 });
const elu = performance.eventLoopUtilization();
busy.enable();
const outcome = await cp.runCycle();
busy.disable();
const utilisation = performance.eventLoopUtilization(elu).utilization;
await cp.close();
const p99 = ms(busy.percentile(99));
console.log(`cycle ${outcome.status}: ${outcome.evaluated} candidates evaluated in ${outcome.wallSeconds.toFixed(1)} s`);
console.log(`main-thread event-loop delay during the cycle: p50 ${ms(busy.percentile(50)).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${ms(busy.max).toFixed(1)} ms`);
console.log(`event-loop utilisation ${(utilisation * 100).toFixed(1)}%; with no cycle: p99 ${ms(idle.percentile(99)).toFixed(1)} ms, max ${ms(idle.max).toFixed(1)} ms`);
const met = p99 < Math.max(50, ms(idle.percentile(99)) + 25) && utilisation < 0.3;
console.log(`target p99 < max(50 ms, idle p99 + 25 ms) and utilisation < 30%: ${met ? 'met' : 'NOT met'}`);

function mkdirpWrite(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}
