import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const window = ['--workload', 'cc', '--agents', '30', '--warmup-min', '1', '--minutes', '3'];
const hostile = (name: string) => join('test', 'sandbox', 'hostile', name);

describe('autopoiesis replay', () => {
  it('prints the documented JSON for a seed policy', async () => {
    const r = await cli(['replay', '--policy', 'seeds/evolving-infra.js', ...window, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    for (const key of ['policy', 'fitness', 'breakdown', 'metrics', 'failures', 'features', 'finalSplit', 'splitTimeline']) expect(out).toHaveProperty(key);
    expect(Object.keys(out.breakdown)).toEqual(expect.arrayContaining(['reschedules', 'schedSeconds', 'staleSeconds', 'reconfigSeconds', 'serveSeconds']));
    expect(out.fitness.tTotal).toBeGreaterThan(0);
  });

  it('is deterministic with a fixed sched cost', async () => {
    const a = await cli(['replay', '--policy', 'seeds/greedy.js', ...window, '--sched-cost', 'fixed:1', '--json']);
    const b = await cli(['replay', '--policy', 'seeds/greedy.js', ...window, '--sched-cost', 'fixed:1', '--json']);
    expect(a.stdout).toBe(b.stdout);
  });

  for (const fixture of ['loop-schedule.js', 'memory-bomb-schedule.js', 'reach-process.js', 'syntax-error.js', 'missing-schedule.js']) {
    it(`finishes the replay with a hostile policy (${fixture}) and reports its failure`, async () => {
      const r = await cli(['replay', '--policy', hostile(fixture), ...window, '--sched-cost', 'zero', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.failures.length).toBeGreaterThan(0);
      expect(out.metrics.requestsInFlight).toBe(0);
    });
  }

  it('bad input exits 2 with one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-'));
    for (const [args, pattern] of [
      [['--policy', join(dir, 'nope.js')], /nope\.js: policy file not found/],
      [['--policy', 'seeds/greedy.js', '--sched-cost', 'sometimes'], /--sched-cost/],
      [['--policy', dir], /not a file/],
    ] as [string[], RegExp][]) {
      const r = await cli(['replay', ...args, ...window]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
    }
  });
});

describe('autopoiesis compare', () => {
  it('prints every policy side by side', async () => {
    const r = await cli(['compare', ...window, '--policies', 'seeds/static-4p5d.js', 'seeds/greedy.js', '--sched-cost', 'fixed:1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/static-4p5d/);
    expect(r.stdout).toMatch(/greedy/);
    expect(r.stdout).toMatch(/T_total/);
  });
});
