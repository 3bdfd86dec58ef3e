import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';
import { calibrate, CALIBRATION_BEGIN, CALIBRATION_END, reportJson } from '../../src/calibrate/index.js';

/** `tty`: stderr is a terminal, and the progress clock moves a second per reading. */
async function cli(args: string[], tty = false) {
  let t = 0;
  const io = Object.assign(bufferIO(), tty ? { errIsTTY: true, now: () => (t += 1000) } : {});
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** Short runs: 1 minute of warm-up, 2 scored (the figures mean nothing; the plumbing is what is tested). */
const SHORT = ['--warmup-min', '1', '--minutes', '2', '--threads', '1'];

describe('autopoiesis calibrate: bad input', () => {
  it('an unknown --only name exits 2 with one line listing the valid names, before running anything', async () => {
    const r = await cli(['calibrate', '--only', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^autopoiesis: unknown --only name "nope"; valid names: putnam-sglang-pd, .*cc126-4p5d, cc126-fetch, micro$/);
  });

  it('rejects contradictory flags with exit 2', async () => {
    expect((await cli(['calibrate', '--json', '--markdown'])).code).toBe(2);
    const r = await cli(['calibrate', '--update-docs', '--only', 'micro']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--update-docs writes the full calibration/);
    expect((await cli(['calibrate', '--threads', '0'])).code).toBe(2);
    expect((await cli(['calibrate', '--minutes', 'x'])).code).toBe(2);
  });

  it('a docs file without the markers is a one-line input error before the runs start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'calibration-doc-'));
    const file = join(dir, 'calibration.md');
    writeFileSync(file, '# nothing here\n');
    const r = await cli(['calibrate', '--update-docs', file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('no calibration section');
    expect(readFileSync(file, 'utf8')).toBe('# nothing here\n');
  });
});

describe('autopoiesis calibrate: a short end-to-end run', () => {
  it('runs one table and prints {seeds, rows, sweeps, modelError} with exactly the documented keys', async () => {
    const r = await cli(['calibrate', '--only', 'cc126-fetch', '--json', '--seed', '1', ...SHORT], true);
    expect(r.code).toBe(0);
    // On a terminal: progress per run (k/N runs, the run, an ETA), cleared at the end.
    expect(r.stderr).toMatch(/^\rcalibrate \[#+\.*\] +50% 1\/2 runs, cc /);
    expect(r.stderr).toMatch(/\rcalibrate \[#+\] 100% 2\/2 runs, ETA 0s, cc /);
    expect(r.stderr.endsWith('\r\x1b[K')).toBe(true);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(Object.keys(out).sort()).toEqual(['modelError', 'rows', 'seeds', 'sweeps']);
    expect(out.seeds).toEqual([1]);
    expect(out.sweeps).toEqual([]);
    expect(out.rows).toHaveLength(12);
    for (const row of out.rows) {
      expect(Object.keys(row).sort()).toEqual(['id', 'max', 'metric', 'min', 'perSeed', 'published', 'relError', 'sd', 'seedsMet', 'simulated']);
      expect(Number.isFinite(row.simulated)).toBe(true);
      // One seed: the mean is that seed's value, with no spread.
      expect(row.perSeed).toEqual([row.simulated]);
      expect(row.sd).toBe(0);
    }
    expect(out.rows[0]).toMatchObject({ id: 'cc126-fetch.at-start.throughput', metric: 'throughput', published: 4.62 });
    const thr = out.rows[0];
    expect(thr.relError).toBeCloseTo((thr.simulated - 4.62) / 4.62, 3);
    expect(out.rows.map((x: { id: string }) => x.id)).toContain('cc126-fetch.async.prefillIdle');
  });

  it('text output has the table and the count of targets met', async () => {
    const r = await cli(['calibrate', '--only', 'cc126-4p5d', '--seeds', '1', ...SHORT]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^calibration: 9 x gb300, closed loop, warm-up 1 min, scored minutes 1 to 3, seed 1; 2 simulation runs/);
    expect(r.stdout).toContain('cache-affinity routing  throughput (req/s)');
    // 2 columns x 7 figures with a tolerance (throughput, TTFT and E2E mean and P95, lost reuse, uncached tokens).
    expect(r.stdout).toMatch(/targets met: \d+ of 14/);
    // Off a terminal: nothing but the final output.
    expect(r.stderr).toBe('');
  });

  it.skipIf(!existsSync('dist/src/calibrate/worker.js'))('runs a sweep on worker threads: 8 splits, the published split among them', async () => {
    const run = await calibrate({ only: 'putnam-evolving-infra', threads: 2, settings: { warmupMinutes: 1, minutes: 2, seeds: [1] } });
    expect(run.runs).toBe(8);
    const json = reportJson(run.report) as { sweeps: { id: string; publishedBest: string; simulatedBest: string; throughputBySplit: Record<string, number>; bestBySeed: string[] }[] };
    expect(json.sweeps).toHaveLength(1);
    const s = json.sweeps[0]!;
    expect(Object.keys(s).sort()).toEqual([
      'bestBySeed',
      'id',
      'publishedBest',
      'seedsAgreeing',
      'simulatedBest',
      'throughputBySplit',
      'throughputGap',
      'throughputGapSd',
      'throughputSdBySplit',
    ]);
    expect(s.bestBySeed).toEqual([s.simulatedBest]);
    expect(Object.keys(s.throughputBySplit)).toEqual(['1P8D', '2P7D', '3P6D', '4P5D', '5P4D', '6P3D', '7P2D', '8P1D']);
    expect(s.publishedBest).toBe('2P7D');
    expect(Object.values(s.throughputBySplit).every((x) => x > 0)).toBe(true);
    // The row at the published best split is that split's sweep run.
    const row = run.report.rows.find((x) => x.id === 'putnam-evolving-infra.throughput')!;
    expect(row.simulated).toBe(s.throughputBySplit['2P7D']);
  });

  it('--markdown and --update-docs write the same tables between the markers', async () => {
    const md = await cli(['calibrate', '--only', 'micro', '--markdown', '--seeds', '1,2', ...SHORT]);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^Produced by `npm run calibrate:docs`.*seeds 1, 2 \(every figure is the mean over the 2 seeds/);
    expect(md.stdout).toContain('| figure | published | simulated (mean ± sd) | error | target | met | seeds met |');
    // A figure from the runs has a spread and a count of seeds; one from the profiles has neither.
    expect(md.stdout).toMatch(/\| TPOT mean[^|]*\| [\d.]+ \| [\d.]+ ± [\d.]+ \|/);
    expect(md.stdout).toMatch(/\| prefill queue wait median[^\n]*\| in range \| (yes|MISSED) \| \d\/2 \|\n/);
    expect(md.stdout).toMatch(/\| decode iteration time at 8 running[^\n]*\|  \|\n/);
    expect(md.stdout).toContain('decode iteration time at 8 running');
    // The markers are what --update-docs needs; the command itself refuses partial runs, so check the pieces.
    expect(CALIBRATION_BEGIN).toContain('calibration:begin');
    expect(CALIBRATION_END).toContain('calibration:end');
  });
});
