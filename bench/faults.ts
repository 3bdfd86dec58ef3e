/**
 * Fault injection for the continuous mode: a long `serve` is SIGKILLed at
 * moments chosen from the lineage database's progress (never from sleeps):
 * right after the simulated time is saved, a cycle starts or ends, an
 * iteration's candidates are committed, or a deployment is written. After
 * each kill it checks the database and the staging files, then resumes the
 * run to a little past where it was, unpaced and to its end, and checks that
 * no request was lost. The next round resumes it again, long, to be killed.
 *
 * Checked after every kill:
 * - PRAGMA integrity_check is ok and foreign_key_check is empty;
 * - no duplicate ids, a single serve run (resume continues it), no
 *   deployment written twice;
 * - the run was started whole: settings and the starting deployment at 0;
 * - at most one cycle left 'running' (the one killed); every deployment of
 *   a cycle names a recorded winner of a cycle that finished with a fitness;
 * - deployments are consistent with the staged files: every deployment
 *   after the first has its code in a file of deployed/, and every file of
 *   deployed/ is a deployment or the recorded winner of a finished cycle
 *   (validated, then pending when the process was killed or the run ended,
 *   or superseded by a newer winner before its monitoring step);
 * - every request is either completed or in flight: the resumed run ends
 *   with dropped = arrived - completed - in flight = 0.
 *
 * Run: npm run bench:faults [-- --kills N]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { packageRoot } from '../src/common/package-root.js';
import { parseStaged, settledDir, sha256 } from '../src/dataplane/staging.js';
import { benchFlags, numberFlag } from './args.js';

export type Trigger = 'sim-time' | 'cycle-start' | 'cycle-end' | 'candidates' | 'deployment';
const TRIGGERS: readonly Trigger[] = ['sim-time', 'cycle-start', 'candidates', 'cycle-end', 'deployment'];
/** Paced so that a cycle (at most 9 s of wall time here) ends within a few simulated minutes. */
const SPEED = '30';

export interface KillResult {
  round: number;
  trigger: Trigger | `${Trigger} (fallback: candidates)`;
  /** What the database held when the kill was sent. */
  at: Progress;
  problems: string[];
  deployments: number;
  pendingAtKill: number;
  resumedToMinutes: number;
  arrived: number;
  dropped: number;
}

export interface FaultReport {
  dir: string;
  kills: KillResult[];
  ok: boolean;
}

interface Progress {
  simSeconds: number;
  cycles: number;
  cyclesEnded: number;
  candidates: number;
  deployments: number;
}

export interface FaultOptions {
  kills: number;
  /** Working directory (default: a new temporary one). */
  dir?: string;
  log?: (line: string) => void;
}

export async function runFaults(options: FaultOptions): Promise<FaultReport> {
  const log = options.log ?? (() => {});
  const root = packageRoot();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'faults-'));
  const db = join(dir, 'live.db');
  const staging = join(dir, 'policies', 'staging');
  // A clearly bad starting policy (8P1D) and no margin (a strict improvement still), so that cycles find winners and deploy them.
  const policy = join(dir, 'eight-prefill.js');
  writeFileSync(policy, readFileSync(join(root, 'seeds', 'static-4p5d.js'), 'utf8').replace('const PREFILL_NODES = 4;', 'const PREFILL_NODES = 8;'));
  const serve = ['--workload', 'cc', '--agents', '20', '--window-min', '1', '--warmup-min', '0.5', '--cycle-max-min', '0.15', '--threads', '1', '--islands', '2',
    '--cpu-limit-ms', '1000', '--margin', '0', '--policy', policy, '--db', db, '--staging', staging];
  const kills: KillResult[] = [];
  for (let round = 1; round <= options.kills; round++) {
    const wanted = TRIGGERS[(round - 1) % TRIGGERS.length]!;
    const args = round === 1 ? ['serve', ...serve, '--speed', SPEED, '--duration-min', '600'] : ['serve', '--resume', '--db', db, '--speed', SPEED, '--duration-min', '600'];
    const { trigger, at } = await killWhen(root, args, db, wanted);
    const checked = checkDatabase(db, staging);
    // Resume to a little past where it was, to the end: the whole past re-served, requests counted.
    const reached = Math.max(at.simSeconds, readProgress(db)?.simSeconds ?? 0);
    const minutes = Math.ceil(reached / 60) + 1;
    const resumed = await runToEnd(root, ['serve', '--resume', '--db', db, '--speed', '0', '--duration-min', String(minutes), '--json']);
    const problems = [...checked.problems];
    if (resumed.code !== 0 || !resumed.report) problems.push(`resume exited ${resumed.code}: ${resumed.stderr.trim().split('\n').at(-1) ?? ''}`);
    const report = resumed.report;
    if (report && report.droppedRequests !== 0) problems.push(`${report.droppedRequests} request(s) neither completed nor in flight`);
    if (report && report.stop !== 'ended') problems.push(`the resumed run stopped '${report.stop}', not at its end`);
    if (report && report.run !== 1) problems.push(`resume served run ${report.run}, not run 1`);
    const after = checkDatabase(db, staging);
    problems.push(...after.problems.map((p) => `after the resume: ${p}`));
    if (after.running > 0) problems.push(`after the resume: ${after.running} cycle(s) still 'running'`);
    const result: KillResult = {
      round,
      trigger,
      at,
      problems,
      deployments: checked.deployments,
      pendingAtKill: checked.pending,
      resumedToMinutes: minutes,
      arrived: report?.metrics.requestsArrived ?? 0,
      dropped: report?.droppedRequests ?? -1,
    };
    kills.push(result);
    log(describe(result, options.kills));
  }
  return { dir, kills, ok: kills.every((k) => k.problems.length === 0) };
}

function describe(k: KillResult, total: number): string {
  const at = `sim ${k.at.simSeconds.toFixed(0)} s, ${k.at.cycles} cycles (${k.at.cyclesEnded} ended), ${k.at.candidates} candidates, ${k.at.deployments} deployment events`;
  const checks = k.problems.length === 0 ? 'integrity ok, ids unique, run whole' : `PROBLEMS: ${k.problems.join('; ')}`;
  return `kill ${String(k.round).padStart(2)}/${total} after ${k.trigger} (${at}): ${checks}; ${k.deployments} deployment(s), each with its file in deployed/` +
    ` (+${k.pendingAtKill} validated winner(s) never swapped in); resumed to ${k.resumedToMinutes} min: ${k.arrived} arrived, ${k.dropped} lost`;
}

/** Start serve and SIGKILL it right after the database shows the wanted kind of progress. */
async function killWhen(root: string, args: string[], db: string, wanted: Trigger): Promise<{ trigger: KillResult['trigger']; at: Progress }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', join(root, 'bin', 'autopoiesis.js'), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let exited: number | null | undefined;
  const exit = new Promise<void>((r) => child.on('exit', (code) => ((exited = code), r())));
  let base: Progress | undefined;
  let last: Progress | undefined;
  let hit: { trigger: KillResult['trigger']; at: Progress } | undefined;
  while (!hit) {
    if (exited !== undefined) throw new Error(`serve exited (${exited}) before the awaited progress: ${stderr.trim().split('\n').at(-1) ?? ''}`);
    const p = readProgress(db);
    // The first reading after start is the base: progress is what changes from it.
    if (p && !base) base = p;
    if (p && base && last) {
      if (changed(wanted, base, p)) hit = { trigger: wanted, at: p };
      // A deployment needs a winner: when two cycles ended without one, the next committed iteration will do.
      else if (p.cyclesEnded - base.cyclesEnded >= 2 && p.candidates > last.candidates) hit = { trigger: `${wanted} (fallback: candidates)`, at: p };
    }
    if (p) last = p;
    if (!hit) await new Promise((r) => setTimeout(r, 15));
  }
  child.kill('SIGKILL');
  await exit;
  return hit;
}

function changed(wanted: Trigger, base: Progress, p: Progress): boolean {
  switch (wanted) {
    case 'sim-time':
      return p.simSeconds > base.simSeconds;
    case 'cycle-start':
      return p.cycles > base.cycles;
    case 'cycle-end':
      return p.cyclesEnded > base.cyclesEnded;
    case 'candidates':
      return p.candidates > base.candidates;
    case 'deployment':
      return p.deployments > base.deployments;
  }
}

/** The database's progress, read-only; undefined while it does not exist yet or cannot be read. */
function readProgress(db: string): Progress | undefined {
  if (!existsSync(db)) return undefined;
  let d: Database.Database | undefined;
  try {
    d = new Database(db, { readonly: true, fileMustExist: true });
    const one = (sql: string) => Number(d!.prepare(sql).pluck().get() ?? 0);
    return {
      simSeconds: one("SELECT value FROM run_state WHERE run = 1 AND key = 'simSeconds'"),
      cycles: one('SELECT count(*) FROM cycles'),
      // Ended by the cycle itself (a resume marks the killed one 'interrupted': not an end of this kind).
      cyclesEnded: one("SELECT count(*) FROM cycles WHERE status IN ('finished', 'timed_out', 'failed')"),
      candidates: one('SELECT count(*) FROM candidates'),
      deployments: one('SELECT count(*) + count(rolled_back_at) FROM deployments'),
    };
  } catch {
    return undefined; // not created yet, or the schema is being written
  } finally {
    d?.close();
  }
}

/** The checks on the database and staging files after a kill. */
export function checkDatabase(db: string, staging: string): { problems: string[]; deployments: number; pending: number; running: number } {
  const problems: string[] = [];
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const integrity = d.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') problems.push(`integrity_check: ${String(integrity)}`);
    const fk = d.pragma('foreign_key_check') as unknown[];
    if (fk.length > 0) problems.push(`foreign_key_check: ${fk.length} violation(s)`);
    for (const table of ['runs', 'cycles', 'candidates', 'deployments']) {
      const { n, uniq } = d.prepare(`SELECT count(*) AS n, count(DISTINCT id) AS uniq FROM ${table}`).get() as { n: number; uniq: number };
      if (n !== uniq) problems.push(`${table}: ${n - uniq} duplicate id(s)`);
    }
    const runs = d.prepare('SELECT id FROM runs').pluck().all() as number[];
    if (runs.length !== 1) problems.push(`${runs.length} runs, expected the one serve run`);
    const settings = d.prepare("SELECT count(*) FROM run_state WHERE run = 1 AND key = 'serveSettings'").pluck().get();
    if (settings !== 1) problems.push('the run has no saved settings');
    const twice = d.prepare('SELECT count(*) FROM (SELECT 1 FROM deployments GROUP BY run, candidate, deployed_at HAVING count(*) > 1)').pluck().get() as number;
    if (twice > 0) problems.push(`${twice} deployment(s) written twice`);
    const running = d.prepare("SELECT count(*) FROM cycles WHERE status = 'running'").pluck().get() as number;
    if (running > 1) problems.push(`cycles left running: ${running}`);
    const deployments = d.prepare('SELECT d.id, d.cycle, d.candidate, d.deployed_at AS at, c.code FROM deployments d JOIN candidates c ON c.id = d.candidate ORDER BY d.deployed_at, d.id').all() as {
      id: number;
      cycle: number | null;
      candidate: number;
      at: number;
      code: string;
    }[];
    if (deployments[0]?.at !== 0 || deployments[0]?.cycle !== null) problems.push('no starting deployment at 0');
    const badCycle = d
      .prepare(
        `SELECT count(*) FROM deployments d JOIN cycles y ON y.id = d.cycle
         WHERE y.winner IS NOT d.candidate OR y.best_fitness IS NULL OR y.status NOT IN ('finished', 'timed_out')`,
      )
      .pluck()
      .get() as number;
    if (badCycle > 0) problems.push(`${badCycle} deployment(s) of a cycle without that recorded winner and fitness`);
    // Staged files against deployments, by the code's hash.
    const files = stagedFiles(settledDir(staging, 'deployed'));
    const deployedHashes = new Set(deployments.map((x) => sha256(x.code)));
    const fileHashes = new Set(files.map((f) => f.sha256));
    const missing = deployments.slice(1).filter((x) => !fileHashes.has(sha256(x.code)));
    if (missing.length > 0) problems.push(`deployment(s) ${missing.map((x) => x.id).join(', ')} have no file in deployed/`);
    const unrecorded = new Set(files.filter((f) => !deployedHashes.has(f.sha256)).map((f) => f.sha256));
    for (const f of files.filter((x) => !deployedHashes.has(x.sha256))) {
      const winner = f.candidateId === null ? undefined : d.prepare("SELECT count(*) FROM cycles WHERE winner = ? AND status IN ('finished', 'timed_out')").pluck().get(f.candidateId);
      if (winner !== 1) problems.push(`${f.path} in deployed/ is neither a deployment nor the recorded winner of a cycle`);
    }
    return { problems, deployments: deployments.length - 1, pending: unrecorded.size, running };
  } finally {
    d.close();
  }
}

function stagedFiles(dir: string) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => parseStaged(join(dir, name), 0))
    .filter((f): f is NonNullable<typeof f> => f !== null);
}

interface ServeJson {
  run: number;
  stop: string;
  droppedRequests: number;
  metrics: { requestsArrived: number };
}

function runToEnd(root: string, args: string[]): Promise<{ code: number | null; report: ServeJson | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', join(root, 'bin', 'autopoiesis.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      let report: ServeJson | null = null;
      try {
        report = JSON.parse(stdout) as ServeJson;
      } catch {
        // not JSON: the exit code and stderr say why
      }
      resolve({ code, report, stderr });
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flags = benchFlags('faults', 'SIGKILL serve at moments read from its database, resume, and check the run after each', {
    kills: { type: 'string', help: 'number of kills (default 20)' },
  });
  const kills = numberFlag('faults', 'kills', flags.kills, 20, { integer: true, min: 1 });
  const started = process.hrtime.bigint();
  const report = await runFaults({ kills, log: (line) => console.log(line) });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const byTrigger = new Map<string, number>();
  for (const k of report.kills) byTrigger.set(k.trigger, (byTrigger.get(k.trigger) ?? 0) + 1);
  console.log(`\nbench:faults: ${report.kills.length} SIGKILLs of serve, each at a moment chosen from the database's progress, then --resume (in ${wall.toFixed(0)} s, ${report.dir})`);
  console.log(`kill moments: ${[...byTrigger].map(([t, n]) => `${t} ${n}`).join(', ')}`);
  console.log('checked after each: integrity_check and foreign_key_check, unique ids, one run started whole, at most one cycle left running,');
  console.log('  deployments of recorded winners only, deployments = files in deployed/ (the rest: recorded winners validated but never swapped in),');
  console.log('  resumed to its end: 0 requests neither completed nor in flight, no cycle left running');
  const bad = report.kills.filter((k) => k.problems.length > 0);
  console.log(bad.length === 0 ? 'all checks passed' : `${bad.length} kill(s) with problems`);
  process.exitCode = report.ok ? 0 : 1;
}
