import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { bufferIO } from '../../../src/cli/io.js';

beforeAll(() => {
  if (!existsSync(resolve('dist/src/evolve/pool/worker.js'))) execFileSync('npx', ['tsc', '-p', '.'], { stdio: 'ignore' });
}, 120_000);

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** Two tiny scenarios (16 agents, 1 scored minute), one cc and one putnam, in a fresh folder. */
function tinyScenarios(): { dir: string; a: string; b: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ap-multi-'));
  const write = (name: string, preset: string, seed: number) => {
    const file = join(dir, `${name}.json`);
    const spec = { name, note: 'test fixture: a tiny window for evolve tests', workload: { preset, agents: 16 }, cluster: { nodes: 9, kinds: 'gb300' }, mechanics: 'evolving-infra', split: '4P5D', warmupMinutes: 0.5, minutes: 1, seed };
    writeFileSync(file, JSON.stringify(spec));
    return file;
  };
  return { dir, a: write('tiny-cc', 'cc', 1), b: write('tiny-putnam', 'putnam', 3) };
}

function rows(db: string) {
  const d = new Database(db, { readonly: true });
  try {
    return {
      candidates: d.prepare('SELECT id, iteration, island, mutator, edit_summary, code_hash, status, failure_kind, fitness, cell, snapshots FROM candidates ORDER BY id').all(),
      validations: d.prepare('SELECT candidate, iteration, fitness, failure, snapshots FROM validations ORDER BY candidate').all(),
    };
  } finally {
    d.close();
  }
}

const common = ['--islands', '2', '--threads', '2', '--batch', '2', '--sched-cost', 'fixed:1', '--cpu-limit-ms', '1000', '--tune-replays', '4', '--validate-every', '2'];

describe('evolve on several scenarios', () => {
  it('scores each candidate on every snapshot, keeps the breakdown, and the same seed writes the same lineage', async () => {
    const { dir, a, b } = tinyScenarios();
    const run = async (db: string) => {
      const r = await cli(['evolve', '--scenario', `${a},${b}`, '--windows', '2', '--validate-seeds', '101', '--iterations', '4', '--seed', '9', ...common, '--db', db, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const s1 = await run(join(dir, 'one.db'));
    const s2 = await run(join(dir, 'two.db'));
    const l1 = rows(join(dir, 'one.db'));
    expect(l1).toEqual(rows(join(dir, 'two.db')));
    // The whole summary, trajectory counts too: what an evaluation may reuse is what was published when it was sent
    // (docs/evolution.md, "Trajectory reuse"), not what the two workers happened to finish first.
    expect({ ...s1, db: '' }).toEqual({ ...s2, db: '' });
    expect(s1.trajectories.reused).toBeGreaterThan(0);
    expect(s1.fitnessUnit).toBe('ratio');
    // 2 scenarios x 2 windows: four training snapshots per candidate; the reference seed scores exactly 1 on each.
    const seedRows = l1.candidates.filter((c) => (c as { mutator: string }).mutator === 'seed') as { edit_summary: string; fitness: number; snapshots: string }[];
    const reference = seedRows.find((c) => c.edit_summary === 'seed evolving-infra')!;
    expect(reference.fitness).toBe(1);
    const parts = JSON.parse(reference.snapshots) as { label: string; ratio: number; tTotal: number }[];
    expect(parts).toHaveLength(4);
    expect(parts.map((p) => p.ratio)).toEqual([1, 1, 1, 1]);
    expect(new Set(parts.map((p) => p.label)).size).toBe(4);
    for (const c of seedRows) {
      const p = JSON.parse(c.snapshots) as { ratio: number }[];
      expect(c.fitness).toBeCloseTo(p.reduce((s, x) => s + x.ratio, 0) / p.length, 12);
    }
    // Validation: every seed, on the same four windows at seed 101.
    expect(l1.validations.length).toBeGreaterThanOrEqual(seedRows.length);
    expect(JSON.parse((l1.validations[0] as { snapshots: string }).snapshots)).toHaveLength(4);
    expect(s1.validation.seedsBest.fitness).toBeGreaterThan(0);
    expect(s1.archive.perIsland).toHaveLength(2);
    expect(s1.archive.occupiedCells).toBeGreaterThanOrEqual(Math.max(...s1.archive.perIsland));
  }, 300_000);

  it('refuses bad --validate-seeds with one line and exit code 2, writing no database', async () => {
    const { dir, a } = tinyScenarios();
    const cases: [string[], RegExp][] = [
      [['--validate-seeds', ''], /--validate-seeds needs a comma-separated list/],
      [['--validate-seeds', '101,'], /--validate-seeds needs a comma-separated list/],
      [['--validate-seeds', '1.5'], /"1.5" is not a whole number >= 0/],
      [['--validate-seeds', '-3'], /"-3" is not a whole number >= 0/],
      [['--validate-seeds', 'abc'], /"abc" is not a whole number >= 0/],
      [['--validate-seeds', '101,102,101'], /seed 101 is listed twice/],
      [['--validate-seeds', '1'], /seed 1 is the training seed/],
      [['--validate-seeds', '7', '--seed', '7'], /seed 7 is the training seed/],
    ];
    for (const [i, [flags, message]] of cases.entries()) {
      const db = join(dir, `bad-${i}.db`);
      const r = await cli(['evolve', '--scenario', a, '--iterations', '1', ...common, ...flags, '--db', db]);
      expect(r.code, `${flags.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(existsSync(db)).toBe(false);
    }
    // Without a scenario, the training seed is --seed (default 1).
    const db = join(dir, 'bad-workload.db');
    const r = await cli(['evolve', '--agents', '16', '--window-min', '1', '--warmup-min', '0.5', '--validate-seeds', '1', '--iterations', '1', ...common, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(db)).toBe(false);
  }, 120_000);
});
