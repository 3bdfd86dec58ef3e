import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/common/errors.js';
import { runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';
import {
  calibrate,
  defaultSettings,
  loadTargets,
  makeRun,
  metricValue,
  parseSeedList,
  planRuns,
  reportJson,
  runOne,
  selectGroups,
  spreadOf,
  sweepResult,
  TARGETS_FILE,
} from '../../src/calibrate/index.js';

const targets = loadTargets();

describe('mean and spread over seeds', () => {
  it('gives the mean, the sample standard deviation and the extremes of hand-made numbers', () => {
    // mean 5, squared deviations 9 + 1 + 1 + 9 = 20, sample variance 20/3.
    expect(spreadOf([2, 4, 6, 8])).toEqual({ mean: 5, sd: Number(Math.sqrt(20 / 3).toFixed(6)), min: 2, max: 8, values: [2, 4, 6, 8] });
    expect(spreadOf([4.62])).toEqual({ mean: 4.62, sd: 0, min: 4.62, max: 4.62, values: [4.62] });
    expect(spreadOf([1, 1, 1])!.sd).toBe(0);
    expect(spreadOf([])).toBeNull();
    expect(spreadOf([1, null])).toBeNull();
    expect(spreadOf([1, NaN])).toBeNull();
  });

  it('takes the best split from the mean throughput, counts the seeds that agree, and pairs the gap seed by seed', () => {
    const sweep = targets.sweeps.find((s) => s.id === 'cc-sglang-pd')!;
    expect(sweep.publishedBest).toBe('4P5D');
    // Seed 1 peaks at 5P4D, seed 2 at 4P5D, seed 3 at 5P4D; the means are 4.8 (4P5D) and 5.0 (5P4D).
    const r = sweepResult(targets, sweep, [
      { '3P6D': 4, '4P5D': 4.5, '5P4D': 5 },
      { '3P6D': 4, '4P5D': 5.4, '5P4D': 5 },
      { '3P6D': 4, '4P5D': 4.5, '5P4D': 5 },
    ]);
    expect(r.throughputBySplit).toEqual({ '3P6D': 4, '4P5D': 4.8, '5P4D': 5 });
    expect(r.throughputSdBySplit['3P6D']).toBe(0);
    expect(r.throughputSdBySplit['4P5D']).toBeCloseTo(Math.sqrt((0.09 + 0.36 + 0.09) / 2), 5);
    expect(r.simulatedBest).toBe('5P4D');
    expect(r.bestBySeed).toEqual(['5P4D', '4P5D', '5P4D']);
    expect(r.seedsAgreeing).toBe(1);
    expect(r.ok).toBe(false);
    expect(r.nodesAway).toBe(1);
    expect(r.throughputGap).toBeCloseTo(1 - 4.8 / 5, 4);
    // Paired gaps 0.1, -0.08, 0.1: mean 0.04, sd sqrt((0.06^2 * 2 + 0.12^2) / 2).
    expect(r.throughputGapSd).toBeCloseTo(Math.sqrt((0.0036 * 2 + 0.0144) / 2), 4);
  });
});

describe('seed lists', () => {
  it('--seeds takes distinct non-negative whole numbers, comma-separated', () => {
    expect(parseSeedList('1,2,3')).toEqual([1, 2, 3]);
    expect(parseSeedList(' 7 , 0 ')).toEqual([7, 0]);
    for (const bad of ['', ',', '1,,2', '1,x', '-1', '1.5', '2,2', '1e3']) {
      expect(() => parseSeedList(bad), bad).toThrow(UsageError);
    }
    expect(() => parseSeedList('1,1')).toThrow(/--seeds: seeds must be distinct/);
    expect(() => parseSeedList('3,x')).toThrow(/--seeds: "x" is not a non-negative whole number/);
  });

  it('the targets file gives setup.seeds; an old file with one setup.seed reads as a list of one; both is an error', () => {
    expect(targets.setup.seeds.length).toBeGreaterThan(1);
    const dir = mkdtempSync(join(tmpdir(), 'seeds-'));
    const raw = JSON.parse(readFileSync(TARGETS_FILE, 'utf8'));
    const write = (name: string, setup: Record<string, unknown>) => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify({ ...raw, setup }));
      return file;
    };
    const { seeds: _seeds, ...base } = raw.setup;
    expect(loadTargets(write('old.json', { ...base, seed: 5 })).setup.seeds).toEqual([5]);
    expect(() => loadTargets(write('both.json', { ...base, seed: 5, seeds: [1] }))).toThrow(/field setup\.seed: give seeds or seed, not both/);
    expect(() => loadTargets(write('none.json', base))).toThrow(/field setup\.seeds: missing/);
    expect(() => loadTargets(write('dup.json', { ...base, seeds: [1, 1] }))).toThrow(InputError);
    expect(() => loadTargets(write('empty.json', { ...base, seeds: [] }))).toThrow(/field setup\.seeds: at least one seed/);
  });

  it('plans every run once per seed, the seed in its key', () => {
    const all = planRuns(targets, selectGroups(targets), defaultSettings(targets));
    expect(all).toHaveLength(51 * targets.setup.seeds.length);
    expect(new Set(all.map((r) => r.key)).size).toBe(all.length);
    expect(new Set(all.map((r) => r.seed))).toEqual(new Set(targets.setup.seeds));
  });

  it('bad --seeds exits 2 with one line before running anything', async () => {
    for (const args of [['--seeds', '1,x'], ['--seeds', '2,2'], ['--seeds', '1', '--seed', '1'], ['--update-docs', '--seeds', '1']]) {
      const io = bufferIO();
      const code = await runCli(['calibrate', ...args], io);
      expect(code, args.join(' ')).toBe(2);
      expect(io.stdout).toBe('');
      expect(io.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});

describe('a short multi-seed calibration', () => {
  it('reports per figure the mean of the per-seed runs, with their spread', async () => {
    const settings = { warmupMinutes: 1, minutes: 2, seeds: [3, 1] };
    const run = await calibrate({ only: 'cc126-fetch', threads: 1, settings });
    expect(run.runs).toBe(4);
    // The same runs, one by one, outside the calibration.
    const column = targets.tables.find((x) => x.id === 'cc126-fetch')!.columns.find((c) => c.id === 'async')!;
    const perSeed = settings.seeds.map((seed) => runOne(makeRun(targets, settings, seed, 'cc', 126, '4P5D', column.mechanics)).metrics);
    const json = reportJson(run.report) as { seeds: number[]; rows: { id: string; simulated: number; sd: number; min: number; max: number; perSeed: number[] }[] };
    expect(json.seeds).toEqual([3, 1]);
    for (const metric of ['throughput', 'ttft.mean', 'prefillIdle'] as const) {
      const row = json.rows.find((r) => r.id === `cc126-fetch.async.${metric}`)!;
      const values = perSeed.map((m) => metricValue(m, metric));
      expect(values[0]).not.toBe(values[1]);
      expect(row.perSeed).toEqual(values);
      expect(row.simulated).toBeCloseTo((values[0]! + values[1]!) / 2, 5);
      expect(row.sd).toBeCloseTo(Math.abs(values[0]! - values[1]!) / Math.SQRT2, 5);
      expect([row.min, row.max]).toEqual([Math.min(...values), Math.max(...values)]);
    }
  });
});
