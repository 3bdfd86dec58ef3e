import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { SETUP_PREFIX } from '../../../src/evolve/queue/index.js';

/** Workers and coordinators run from dist/ (bin/autopoiesis.js), as a user starts them. */
export function ensureBuilt(): void {
  if (!existsSync(resolve('dist/src/cli/worker.js'))) execFileSync('npx', ['tsc', '-p', '.'], { stdio: 'ignore' });
}

export const BIN = resolve('bin/autopoiesis.js');

/** A queue name of this test's own. */
export function queueName(label: string): string {
  return `test-${label}-${process.pid}-${Date.now().toString(36)}`;
}

export function tmpDir(): string {
  return mkdtempSync(join(tmpdir(), 'ap-queue-'));
}

/** The small evolve window of these tests, and a fixed batch so local and queued runs propose the same slots. */
export const SMALL = ['--agents', '8', '--window-min', '1', '--warmup-min', '0.5', '--islands', '2', '--threads', '2', '--batch', '3', '--cpu-limit-ms', '1000'];

export interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
  /** Resolves once stderr contains `text`. */
  saw(text: string): Promise<void>;
}

export function start(args: string[]): Proc {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const listeners: (() => void)[] = [];
  const proc: Proc = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((r) => child.once('exit', (code) => r(code))),
    saw: (text) =>
      new Promise((resolveSaw, reject) => {
        const check = () => {
          if (proc.stderr.includes(text)) {
            resolveSaw();
            return true;
          }
          return false;
        };
        if (check()) return;
        listeners.push(() => void check());
        void proc.exited.then((code) => (proc.stderr.includes(text) ? resolveSaw() : reject(new Error(`exited ${code} before "${text}": ${proc.stderr}`))));
      }),
  };
  child.stdout!.on('data', (d) => (proc.stdout += d));
  child.stderr!.on('data', (d) => {
    proc.stderr += d;
    for (const l of listeners) l();
  });
  return proc;
}

export async function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = start(args);
  const code = await p.exited;
  return { code, stdout: p.stdout, stderr: p.stderr };
}

/** A worker process; resolves once it is taking jobs. */
export async function startWorker(url: string, extra: string[] = []): Promise<Proc> {
  const w = start(['worker', '--redis', url, '--concurrency', '1', '--lock-ms', '5000', '--stalled-ms', '5000', ...extra]);
  await w.saw('taking jobs');
  return w;
}

/** Everything in the lineage that the run decides (no wall times, no timestamps). */
export function lineage(db: string): unknown[] {
  const d = new Database(db, { readonly: true });
  try {
    return [
      d.prepare('SELECT id, island, iteration, mutator, edit_summary, code_hash, status, failure_kind, fitness, breakdown, metrics, features, cell, snapshots FROM candidates ORDER BY id').all(),
      d.prepare('SELECT * FROM candidate_parents ORDER BY child, parent, role').all(),
      d.prepare("SELECT key, value FROM run_state ORDER BY key").all(),
    ];
  } finally {
    d.close();
  }
}

export function countCandidates(db: string): { n: number; distinct: number } {
  const d = new Database(db, { readonly: true });
  try {
    // A failed mutation (no code came out of it, e.g. a tune that found no better constants) evaluated nothing: not a candidate here.
    return d
      .prepare(`SELECT count(*) AS n, count(DISTINCT code_hash) AS "distinct" FROM candidates WHERE failure_kind IS NULL OR failure_kind NOT LIKE 'mutation:%'`)
      .get() as { n: number; distinct: number };
  } finally {
    d.close();
  }
}

/** A seeds folder with the static seed made slow: it burns counted CPU in every call (a long evaluation to kill a worker in, or to time out). */
export function slowSeeds(withStatic: boolean): string {
  const dir = join(tmpDir(), 'seeds');
  mkdirSync(dir);
  const src = readFileSync(resolve('seeds/static-4p5d.js'), 'utf8');
  const slow = src.replace(/^function shouldReschedule\(ctx\) \{/m, 'function shouldReschedule(ctx) {\n  var spin = 0;\n  for (var i = 0; i < 40000000; i++) spin += i % 7;\n  if (spin < 0) return true;');
  if (slow === src) throw new Error('static-4p5d.js changed: the slow seed fixture needs a new anchor');
  writeFileSync(join(dir, 'slow.js'), slow);
  if (withStatic) writeFileSync(join(dir, 'static-4p5d.js'), src);
  return dir;
}

export function queueOf(port: number, name: string): Queue {
  return new Queue(name, { connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null } });
}

/** Removes the queue's keys and the blobs (setups, snapshots) its jobs name. */
export async function cleanUp(port: number, name: string): Promise<void> {
  const queue = queueOf(port, name);
  const redis = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  try {
    const jobs = await queue.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed', 'prioritized']);
    // Evolve's jobs name their setup, the suite's their snapshot: both are blobs under SETUP_PREFIX.
    const setups = new Set(jobs.flatMap((j) => [j?.data?.setup, j?.data?.snapshot].filter((s): s is string => typeof s === 'string')));
    await queue.obliterate({ force: true });
    for (const sha of setups) await redis.del(SETUP_PREFIX + sha);
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

/**
 * The queues of one test file on the machine's Redis (127.0.0.1:6379): `url(name)` gives a queue URL and
 * remembers it; processes pushed on `procs` are SIGKILLed after the file if still running, then every queue
 * named is removed.
 */
export function machineQueues(port = 6379): { port: number; url: (name: string) => string; procs: Proc[] } {
  const used: string[] = [];
  const procs: Proc[] = [];
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    for (const name of used) await cleanUp(port, name);
  });
  return {
    port,
    procs,
    url: (name) => {
      used.push(name);
      return `redis://127.0.0.1:${port}/${name}`;
    },
  };
}
