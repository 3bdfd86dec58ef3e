import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';
import { SERVE_SETTINGS_KEY } from '../../src/cli/serve-settings.js';
import { loadScenario } from '../../src/scenario/index.js';
import { openLineageStore } from '../../src/store/index.js';

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const short = ['--warmup-min', '0.5', '--minutes', '1'];

async function simulateConfig(args: string[]) {
  const r = await cli(['simulate', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { scenario?: string; config: Record<string, any> };
}

describe('--scenario', () => {
  it('simulate takes the scenario values for every flag not given, and the flags given', async () => {
    const out = await simulateConfig(['--scenario', 'restart-cc', ...short, '--agents', '20']);
    expect(out.scenario).toBe('restart-cc');
    // simulate's own defaults (4P5D, evolving-infra, 30 + 60 min) do not override the scenario's.
    expect(out.config.split).toBe('6P3D');
    expect(out.config.mechanics.transition).toBe('restart');
    expect([out.config.agents, out.config.warmupMinutes, out.config.minutes, out.config.seed]).toEqual([20, 0.5, 1, 1]);
    const overridden = await simulateConfig(['--scenario', 'restart-cc', ...short, '--agents', '20', '--split', '5P4D', '--seed', '4', '--mechanics', 'evolving-infra']);
    expect([overridden.config.split, overridden.config.seed, overridden.config.mechanics.transition]).toEqual(['5P4D', 4, 'symmetric']);
  });

  it('an explicit loop or workload replaces the scenario loop; --elastic replaces its membership', async () => {
    const closed = await simulateConfig(['--scenario', 'open-loop-cc', ...short, '--agents', '15']);
    expect(closed.config.agents).toBe(15);
    expect(closed.config.arrivalRate).toBeUndefined();
    const other = await simulateConfig(['--scenario', 'bursty-cc', ...short, '--workload', 'putnam']);
    expect(other.config.workload).toBe('putnam');
    expect(other.config.bursts).toBeUndefined();
    expect(other.config.agents).toBeUndefined();
    const spot = await simulateConfig(['--scenario', 'spot-osworld', ...short, '--agents', '10', '--elastic', '2:down@40,2:up@70']);
    expect(spot.config.membership).toEqual([
      { node: 2, event: 'down', at: 40 },
      { node: 2, event: 'up', at: 70 },
    ]);
    const kept = await simulateConfig(['--scenario', 'spot-osworld', ...short, '--agents', '10']);
    expect(kept.config.membership).toEqual(loadScenario('spot-osworld').run.membership);
  });

  it('hetero keeps its per-node kinds; --node-kind overrides them', async () => {
    const hetero = await simulateConfig(['--scenario', 'hetero', ...short, '--agents', '10']);
    expect(hetero.config.nodeKinds).toEqual(['gb300', 'gb300', 'gb300', 'gb300', 'gb300', 'h200', 'h200', 'h200', 'h200']);
    const same = await simulateConfig(['--scenario', 'hetero', ...short, '--agents', '10', '--node-kind', 'gb300']);
    expect(new Set(same.config.nodeKinds)).toEqual(new Set(['gb300']));
  });

  it('replay --scenario is the replay of the same run given by flags', async () => {
    const policy = ['--policy', 'seeds/static-4p5d.js', '--sched-cost', 'zero', '--json'];
    const a = await cli(['replay', '--scenario', 'steady-cc', ...short, '--agents', '20', ...policy]);
    const b = await cli(['replay', '--workload', 'cc', '--agents', '20', '--split', '4P5D', '--mechanics', 'evolving-infra', ...short, ...policy]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const c = await cli(['compare', '--scenario', 'steady-cc', ...short, '--agents', '20', '--policies', 'seeds/static-4p5d.js', '--sched-cost', 'zero', '--json']);
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout).snapshot).toBe('scenario steady-cc');
  });

  it('evolve --scenario stores the scenario with the resolved values and replays its snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-evolve-'));
    const db = join(dir, 'e.db');
    const r = await cli(['evolve', '--scenario', 'spot-osworld', '--agents', '10', '--warmup-min', '0.5', '--window-min', '1', '--iterations', '0', '--threads', '1', '--sched-cost', 'zero', '--db', db, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const store = openLineageStore(db, { create: false });
    try {
      const config = store.latestRun()!.config as Record<string, any>;
      expect(config.scenario.ref).toBe('spot-osworld');
      expect(config.scenario.contentHash).toBe(loadScenario('spot-osworld').contentHash);
      expect([config.workload, config.agents, config.windowMinutes, config.warmupMinutes, config.split, config.mechanics]).toEqual(['osworld', 10, 1, 0.5, '4P5D', 'evolving-infra']);
    } finally {
      store.close();
    }
    expect(JSON.parse(r.stdout).evaluated).toBeGreaterThan(0);
  });

  it('evolve --scenario scores candidates on the scenario snapshot (open loop, which its config strings cannot say)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-evolve-open-'));
    const window = ['--warmup-min', '2', '--sched-cost', 'zero', '--json'];
    const r = await cli(['evolve', '--scenario', 'open-loop-cc', '--window-min', '3', '--iterations', '0', '--threads', '1', '--db', join(dir, 'e.db'), ...window]);
    expect(r.code, r.stderr).toBe(0);
    const c = await cli(['compare', '--scenario', 'open-loop-cc', '--minutes', '3', ...window]);
    expect(c.code, c.stderr).toBe(0);
    const best = Math.min(...(JSON.parse(c.stdout).results as { fitness: { tTotal: number } }[]).map((e) => e.fitness.tTotal));
    expect(JSON.parse(r.stdout).seedsBest.fitness).toBe(best);
    // The closed loop its strings alone would describe (126 agents) scores differently.
    const closed = await cli(['compare', '--workload', 'cc', '--minutes', '3', ...window]);
    const closedBest = Math.min(...(JSON.parse(closed.stdout).results as { fitness: { tTotal: number } }[]).map((e) => e.fitness.tTotal));
    expect(closedBest).not.toBe(best);
    // Three CLI runs of every seed (about 12 s on one idle core): the backstop is wide so that a loaded machine cannot fail it.
  }, 240_000);

  it('evolve --resume refuses a scenario file that changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-resume-'));
    const file = join(dir, 'mine.json');
    const spec = { ...loadScenario('steady-cc').spec, name: 'mine', minutes: 1, warmupMinutes: 0.5 };
    writeFileSync(file, JSON.stringify({ ...spec, workload: { preset: 'cc', agents: 10 } }));
    const db = join(dir, 'e.db');
    const first = await cli(['evolve', '--scenario', file, '--iterations', '0', '--threads', '1', '--sched-cost', 'zero', '--db', db, '--json']);
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(file, JSON.stringify({ ...spec, workload: { preset: 'cc', agents: 11 } }));
    const resumed = await cli(['evolve', '--resume', '--iterations', '1', '--db', db]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/mine\.json: field scenario\.contentHash: the scenario changed/);
  });

  it('serve --scenario serves the scenario (its membership included) for its minutes unless --duration-min', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-serve-'));
    const db = join(dir, 'live.db');
    const r = await cli(['serve', '--scenario', 'spot-osworld', '--agents', '10', '--speed', '0', '--duration-min', '3', '--frozen', '--db', db, '--staging', join(dir, 'staging'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).simMinutes).toBe(3);
    const store = openLineageStore(db, { create: false });
    try {
      const settings = store.loadRunState(store.latestRun()!.id)[SERVE_SETTINGS_KEY] as Record<string, any>;
      expect(settings.workload).toBe('osworld');
      expect(settings.membership).toEqual(loadScenario('spot-osworld').run.membership);
      expect(settings.scenario.ref).toBe('spot-osworld');
      expect(settings.durationMinutes).toBe(3);
    } finally {
      store.close();
    }
  });
});
