import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';

/** `tty`: stderr is a terminal and the progress clock moves a second per reading (no wall clock in the test). */
async function cli(args: string[], tty: boolean) {
  let t = 0;
  const io = Object.assign(bufferIO(), { errIsTTY: tty, now: () => (t += 1000) });
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** A short evolve run as a config file: two seeds, a 1.5-minute window, 5 iterations (the command line asks for 2). */
function evolveConfig(): { dir: string; file: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ap-progress-'));
  const seeds = join(dir, 'policies');
  mkdirSync(seeds);
  for (const f of ['greedy.js', 'static-4p5d.js']) copyFileSync(resolve('seeds', f), join(seeds, f));
  const db = join(dir, 'from-config.db');
  const file = join(dir, 'run.json');
  const settings = { workload: 'cc', agents: 16, windowMin: 1.5, warmupMin: 0.5, islands: 2, threads: 2, batch: 2, schedCost: 'fixed:1', cpuLimitMs: 1000, seeds, db, iterations: 5, mutator: 'structural', json: true };
  writeFileSync(file, JSON.stringify({ '//': 'a test run', evolve: settings }));
  return { dir, file, db };
}

describe('evolve progress and --config, end to end', () => {
  it("on a terminal: best against the best seed, evals/s, failures and an ETA; the file's settings used, the flag overriding it", async () => {
    const { file, db } = evolveConfig();
    const r = await cli(['evolve', '--config', file, '--iterations', '2'], true);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!);
    expect(summary.iterations).toBe(2);
    expect(summary.db).toBe(db);
    expect(existsSync(db)).toBe(true);
    expect(summary.archive.perIsland).toHaveLength(2);
    expect(r.stderr).toMatch(/\revolve \[#+\.*\] +50% 1\/2 iterations, best \d+\.\d s, \d+\.\d % (better|worse) than the best seed \(\d+\.\d s\), \d+\.\d evals\/s, \d+ failed\x1b\[K/);
    expect(r.stderr).toMatch(/\revolve \[#+\] 100% 2\/2 iterations, ETA 0s, best /);
    expect(r.stderr.endsWith('\r\x1b[K')).toBe(true);
  }, 240_000);

  it('off a terminal: nothing on stderr, and --json is exactly one object on stdout', async () => {
    const { file } = evolveConfig();
    const r = await cli(['evolve', '--config', file, '--iterations', '1'], false);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout).iterations).toBe(1);
  }, 240_000);
});

describe('--progress', () => {
  it('lines: plain lines on stderr off a terminal (the flag after the command too), --json still one object', async () => {
    const { file } = evolveConfig();
    const r = await cli(['evolve', '--config', file, '--iterations', '2', '--progress', 'lines'], false);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^evolve: 50% 1\/2 iterations, \d+s elapsed, (ETA \S+, )?best \d+\.\d s, /);
    expect(lines.at(-1)).toMatch(/^evolve: 100% 2\/2 iterations, \d+s elapsed, ETA 0s, best /);
    expect(r.stderr).not.toMatch(/[\r\x1b]/);
    expect(JSON.parse(r.stdout).iterations).toBe(2);
  }, 240_000);

  it('an unknown mode: a one-line usage error, exit 2', async () => {
    const r = await cli(['--progress', 'sometimes', 'simulate'], false);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain("'sometimes' is invalid");
    expect(r.stderr).toContain('auto, bar, lines, none');
  });
});

/** A shortened scenario: cc on 4 nodes, 2 + 12 minutes. */
function tinyScenario(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ap-suite-progress-'));
  const file = join(dir, 'tiny-cc.json');
  writeFileSync(
    file,
    JSON.stringify({ name: 'tiny-cc', note: 'a shortened cc run for the progress tests', workload: { preset: 'cc', agents: 30 }, cluster: { nodes: 4 }, split: '2P2D', warmupMinutes: 2, minutes: 12, seed: 1 }),
  );
  return { dir, file };
}

describe('suite progress, end to end', () => {
  it('on a terminal: k/N runs with the current scenario and policy and an ETA; off a terminal: nothing; --json one object either way', async () => {
    const { dir, file } = tinyScenario();
    const config = join(dir, 'suite.json');
    writeFileSync(config, JSON.stringify({ scenarios: file, policies: ['seeds/greedy.js'], threads: 2, json: true }));
    const tty = await cli(['suite', '--config', config, '--cache-dir', join(dir, 'a')], true);
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout.trim().split('\n')).toHaveLength(1);
    const report = JSON.parse(tty.stdout);
    expect(report.scenarios[0].policies.map((p: { policy: string }) => p.policy)).toEqual(['greedy']);
    // 3 static splits on 4 nodes and one policy: 4 runs.
    expect(tty.stderr).toMatch(/\rsuite \[[#.]+\] +\d+% 2\/4 runs, ETA \d+s, tiny-cc (greedy|\dP\dD)\x1b\[K/);
    expect(tty.stderr).toMatch(/\rsuite \[#+\] 100% 4\/4 runs, ETA 0s, tiny-cc /);
    const plain = await cli(['suite', '--config', config, '--cache-dir', join(dir, 'b')], false);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toBe('');
    expect(JSON.parse(plain.stdout)).toEqual(report);
  }, 240_000);
});
