import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'ap-lineage-'));
const db = join(dir, 'runs.db');
const evolveArgs = ['--agents', '16', '--window-min', '1.5', '--warmup-min', '0.5', '--islands', '2', '--threads', '2', '--sched-cost', 'fixed:1', '--cpu-limit-ms', '1000'];
let summary: { run: number; best: { id: number; fitness: number } };

beforeAll(async () => {
  if (!existsSync(resolve('dist/src/evolve/pool/worker.js'))) execFileSync('npx', ['tsc', '-p', '.'], { stdio: 'ignore' });
  const r = await cli(['evolve', '--db', db, '--iterations', '3', ...evolveArgs, '--json']);
  expect(r.code, r.stderr).toBe(0);
  summary = JSON.parse(r.stdout);
}, 240_000);

describe('lineage, show, export', () => {
  it('lists the best candidates of the latest run', async () => {
    const r = await cli(['lineage', '--db', db, '--best', '3', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.run).toBe(summary.run);
    expect(out.best[0].id).toBe(summary.best.id);
    expect(out.best.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < out.best.length; i++) expect(out.best[i].fitness).toBeGreaterThanOrEqual(out.best[i - 1].fitness);
  });

  it('follows a candidate back to a seed and a seed forward to its children', async () => {
    const all = JSON.parse((await cli(['lineage', '--db', db, '--best', '1000', '--json'])).stdout).best as { id: number; iteration: number }[];
    const child = all.find((c) => c.iteration > 0)!;
    const anc = JSON.parse((await cli(['lineage', '--db', db, '--ancestry', String(child.id), '--json'])).stdout) as { depth: number; candidate: { id: number; iteration: number; mutator: string } }[];
    expect(anc[0]!.candidate.id).toBe(child.id);
    expect(anc.at(-1)!.candidate.mutator).toBe('seed');
    const seedId = anc.at(-1)!.candidate.id;
    const kids = JSON.parse((await cli(['lineage', '--db', db, '--children', String(seedId), '--json'])).stdout) as { role: string; candidate: { id: number } }[];
    expect(kids.length).toBeGreaterThan(0);
  });

  it('shows code and the diff against the parent, and exports a policy that replays', async () => {
    const all = JSON.parse((await cli(['lineage', '--db', db, '--best', '1000', '--json'])).stdout).best as { id: number; iteration: number }[];
    const child = all.find((c) => c.iteration > 0)!;
    const shown = await cli(['show', String(child.id), '--db', db, '--diff']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^--- #\d+$/m);
    expect(shown.stdout).toMatch(/^[+-]/m);
    const out = join(dir, 'best.js');
    const exported = await cli(['export', String(summary.best.id), '--db', db, '-o', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/function schedule\(/);
    const replay = await cli(['replay', '--policy', out, '--workload', 'cc', '--agents', '16', '--warmup-min', '0.5', '--minutes', '1.5', '--json']);
    expect(replay.code, replay.stderr).toBe(0);
  });

  it('warm-starts a new run from the best of this one', async () => {
    const other = join(dir, 'warm.db');
    const r = await cli(['evolve', '--db', other, '--iterations', '1', '--warm-start', db, ...evolveArgs, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse((await cli(['lineage', '--db', other, '--best', '1000', '--json'])).stdout).best as { mutator: string }[];
    expect(rows.some((c) => c.mutator === 'warm-start')).toBe(true);
  }, 240_000);

  it('bad input: unknown candidate or database exits 2 with one line', async () => {
    for (const args of [['show', '999999', '--db', db], ['lineage', '--db', join(dir, 'missing.db')], ['export', '1', '--db', join(dir, 'missing.db'), '-o', join(dir, 'x.js')], ['show', 'abc', '--db', db]]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(join(dir, 'missing.db'))).toBe(false);
  });
});
