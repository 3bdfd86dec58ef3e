/**
 * The queue backend (src/evolve/queue): evaluations per minute through a
 * BullMQ queue on the machine's Redis with 1 and 2 `autopoiesis worker`
 * processes of one thread each, and the queue's overhead per job: a trivial
 * evaluation's round trip from the coordinator minus the time the worker
 * spent evaluating it. Targets: >= 1.8x from 1 to 2 workers; <= 5 ms per job.
 * Run: npm run bench:queue [-- --jobs N] (Redis on 127.0.0.1:6379, or --redis URL)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { buildSnapshot, parseSchedCost, type Snapshot } from '../src/evaluate/index.js';
import { MECHANICS_PRESETS, parseSplit } from '../src/sim/index.js';
import { packageRoot } from '../src/common/package-root.js';
import { QueueEvaluator, parseQueueAddress, SETUP_PREFIX, connectionOf } from '../src/evolve/queue/index.js';
import { benchFlags, numberFlag } from './args.js';

const flags = benchFlags('queue', 'evaluations per minute through the BullMQ queue with 1 and 2 workers, and its overhead per job', {
  jobs: { type: 'string', help: 'evaluations per measurement (default 12)' },
  redis: { type: 'string', help: 'Redis address (default redis://127.0.0.1:6379)' },
});
const jobs = numberFlag('queue', 'jobs', flags.jobs, 12, { integer: true, min: 1 });
const base = flags.redis ?? 'redis://127.0.0.1:6379';
const name = `bench-queue-${process.pid}`;
const address = parseQueueAddress(`${base}/${name}`, '--redis');
const source = readFileSync(join(packageRoot(), 'seeds', 'evolving-infra.js'), 'utf8');
const bin = join(packageRoot(), 'bin', 'autopoiesis.js');

function snapshot(agents: number, warmupMinutes: number, minutes: number): Snapshot {
  return buildSnapshot({ workload: 'cc', agents, roles: parseSplit('4P5D', 9), nodeKinds: Array(9).fill('gb300'), mechanics: MECHANICS_PRESETS['evolving-infra'], warmupMinutes, minutes, seed: 1 });
}

async function startWorkers(n: number): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from({ length: n }, () => {
      const child = spawn(process.execPath, ['--no-node-snapshot', bin, 'worker', '--redis', `${base}/${name}`, '--concurrency', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
      return new Promise<ChildProcess>((resolve, reject) => {
        let err = '';
        child.stderr!.on('data', (d) => {
          err += d;
          if (err.includes('taking jobs')) resolve(child);
        });
        child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
      });
    }),
  );
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(workers.map((w) => new Promise((r) => (w.once('exit', r), w.kill('SIGTERM')))));
}

async function open(s: Snapshot): Promise<QueueEvaluator> {
  return QueueEvaluator.open({ snapshot: s, schedCost: parseSchedCost('counted'), sandbox: {}, wallLimitMs: 60_000, address, threads: 2, timeoutMs: 60_000 });
}

/** Distinct names: a job's id is its content, and equal jobs would be answered once. */
let serial = 0;
const task = () => ({ candidateId: -1, name: `bench ${serial++}`, code: source });

async function throughput(workersN: number, s: Snapshot): Promise<{ perMin: number; evalMs: number }> {
  const workers = await startWorkers(workersN);
  const q = await open(s);
  try {
    // Warm-up: every worker starts its pool (thread, sandbox) on its first job.
    await Promise.all(Array.from({ length: 3 * workersN }, () => q.evaluate(task())));
    const t0 = performance.now();
    const outcomes = await Promise.all(Array.from({ length: jobs }, () => q.evaluate(task())));
    const wallS = (performance.now() - t0) / 1000;
    if (outcomes.some((o) => !o.ok)) throw new Error('an evaluation failed');
    return { perMin: (jobs / wallS) * 60, evalMs: outcomes.reduce((a, o) => a + o.wallMs, 0) / jobs };
  } finally {
    await q.close();
    await stopWorkers(workers);
  }
}

async function overhead(s: Snapshot, n: number): Promise<{ medianMs: number; meanMs: number; roundTripMs: number }> {
  const workers = await startWorkers(1);
  const q = await open(s);
  try {
    for (let i = 0; i < 5; i++) await q.evaluate(task());
    const over: number[] = [];
    const trips: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const o = await q.evaluate(task());
      const trip = performance.now() - t0;
      trips.push(trip);
      over.push(trip - o.wallMs);
    }
    over.sort((a, b) => a - b);
    trips.sort((a, b) => a - b);
    return { medianMs: over[Math.floor(n / 2)]!, meanMs: over.reduce((a, b) => a + b, 0) / n, roundTripMs: trips[Math.floor(n / 2)]! };
  } finally {
    await q.close();
    await stopWorkers(workers);
  }
}

async function cleanUp(): Promise<void> {
  const queue = new Queue(name, { connection: connectionOf(address) });
  const client = await queue.client;
  const setups = new Set((await queue.getJobs(['completed', 'failed'])).map((j) => String(j.data.setup)));
  await queue.obliterate({ force: true });
  for (const sha of setups) await client.del(SETUP_PREFIX + sha);
  await queue.close();
}

try {
  const work = snapshot(126, 2, 10);
  const one = await throughput(1, work);
  const two = await throughput(2, work);
  const trivial = await overhead(snapshot(2, 0, 0.05), 50);
  const speedup = two.perMin / one.perMin;
  console.log(`bench:queue ${jobs} evaluations of the evolving-infra seed (cc, 126 agents, 10-min window + 2-min warm-up), counted cost, Redis ${base}`);
  console.log(`1 worker : ${one.perMin.toFixed(0)} evaluations/min (${one.evalMs.toFixed(0)} ms per evaluation in the worker)`);
  console.log(`2 workers: ${two.perMin.toFixed(0)} evaluations/min (${two.evalMs.toFixed(0)} ms per evaluation in the worker)`);
  console.log(`speed-up 1 -> 2 workers: ${speedup.toFixed(2)}x (target >= 1.8x: ${speedup >= 1.8 ? 'met' : 'NOT met'})`);
  console.log(`overhead per job (trivial evaluation, one at a time, round trip minus evaluation): median ${trivial.medianMs.toFixed(2)} ms, mean ${trivial.meanMs.toFixed(2)} ms; round trip median ${trivial.roundTripMs.toFixed(2)} ms (target <= 5 ms: ${trivial.medianMs <= 5 ? 'met' : 'NOT met'})`);
  // Each worker has one thread: with two free cores an evaluation takes as long with two workers as with one.
  console.log(`contention: an evaluation took ${(two.evalMs / one.evalMs).toFixed(2)}x as long in the worker with 2 workers as with 1 (1.00x when two cores are free); speed-up per unit of evaluation time ${(speedup * (two.evalMs / one.evalMs)).toFixed(2)}x`);
  console.log('note: figures depend on the machine\'s load; two workers need two free cores (the coordinator and Redis share them).');
} finally {
  await cleanUp();
}
