import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** A shortened scenario: cc on 4 nodes, 2 + 12 minutes (two oracle windows). */
function tinyScenario(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'suite-cli-'));
  const file = join(dir, 'tiny-cc.json');
  writeFileSync(
    file,
    JSON.stringify({ name: 'tiny-cc', note: 'a shortened cc run for the suite command tests', workload: { preset: 'cc', agents: 30 }, cluster: { nodes: 4 }, split: '2P2D', warmupMinutes: 2, minutes: 12, seed: 1 }),
  );
  return { dir, file };
}

const policies = ['--policies', 'seeds/evolving-infra.js', 'seeds/greedy.js'];

describe('autopoiesis suite', () => {
  it('prints the documented JSON, the same on a cold and a warm cache and on 2 threads or 1', async () => {
    const { dir, file } = tinyScenario();
    const args = ['suite', '--scenarios', file, ...policies, '--cache-dir', join(dir, 'oracles'), '--json'];
    const cold = await cli([...args, '--threads', '2']);
    expect(cold.code, cold.stderr).toBe(0);
    const out = JSON.parse(cold.stdout);
    expect(out.scenarios).toHaveLength(1);
    const s = out.scenarios[0];
    expect(s.name).toBe('tiny-cc');
    expect(s.oracle.staticBest).toEqual(expect.objectContaining({ split: expect.stringMatching(/^\dP\dD$/), throughput: expect.any(Number) }));
    expect(s.oracle.window.throughput).toBeGreaterThanOrEqual(s.oracle.staticBest.throughput);
    expect(s.policies.map((p: { policy: string }) => p.policy)).toEqual(['evolving-infra', 'greedy']);
    for (const p of s.policies) {
      for (const key of ['throughput', 'ttftP95', 'e2eMean', 'tTotal', 'transitions', 'vsStaticPct', 'oracleGapPct']) expect(typeof p[key], key).toBe('number');
      expect(p.vsStaticPct).toBeCloseTo((p.throughput / s.oracle.staticBest.throughput - 1) * 100, 1);
      expect(p.oracleGapPct).toBeCloseTo((1 - p.throughput / s.oracle.window.throughput) * 100, 1);
    }
    const warm = await cli([...args, '--threads', '1']);
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stdout).toBe(cold.stdout);
  });

  it('prints a table per scenario, and the oracles alone with --oracles-only or `oracle`', async () => {
    const { dir, file } = tinyScenario();
    const cache = ['--cache-dir', join(dir, 'oracles')];
    const only = await cli(['suite', '--scenarios', file, '--oracles-only', ...cache, '--json']);
    expect(only.code, only.stderr).toBe(0);
    const o = JSON.parse(only.stdout).scenarios[0];
    expect(o.policies).toEqual([]);
    const oracle = await cli(['oracle', '--scenario', file, ...cache, '--json']);
    expect(oracle.code, oracle.stderr).toBe(0);
    const r = JSON.parse(oracle.stdout);
    expect(r.runs.map((x: { split: string }) => x.split)).toEqual(['1P3D', '2P2D', '3P1D']);
    expect(r.staticBest).toEqual(o.oracle.staticBest);
    expect(r.window.throughput).toBe(o.oracle.window.throughput);
    const text = await cli(['suite', '--scenarios', file, '--policies', 'seeds/greedy.js', ...cache, '--threads', '1']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`best static ${o.oracle.staticBest.split}`);
    expect(text.stdout).toMatch(/\ngreedy +\d/);
    expect(text.stdout).toContain('oracles: 1 of 1 from the cache');
  });

  const bad: [string, string[], RegExp][] = [
    ['an unknown scenario', ['suite', '--scenarios', 'no-such-scenario'], /unknown scenario "no-such-scenario"/],
    ['a missing scenario file', ['oracle', '--scenario', 'nowhere/tiny.json'], /nowhere\/tiny\.json: scenario file not found/],
    ['a missing policy file', ['suite', '--scenarios', 'steady-cc', '--policies', 'nowhere.js'], /nowhere\.js: policy file not found/],
    ['a bad seed', ['suite', '--seed', 'x'], /--seed must be a whole number/],
    ['a negative seed', ['oracle', '--scenario', 'steady-cc', '--seed', '-1'], /--seed must be between/],
    ['zero threads', ['suite', '--threads', '0'], /--threads must be between 1 and 64/],
    ['a bad sched cost', ['suite', '--scenarios', 'steady-cc', '--sched-cost', 'free'], /--sched-cost/],
  ];
  for (const [what, args, message] of bad) {
    it(`rejects ${what} with one line and exit 2, before any run`, async () => {
      const r = await cli(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    });
  }
});
