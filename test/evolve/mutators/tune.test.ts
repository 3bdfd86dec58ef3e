import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { buildSnapshotFromStrings, evaluatePolicy, evaluateTracked, parseSchedCost } from '../../../src/evaluate/index.js';
import { createTuneMutator, runTuning, type Tuner } from '../../../src/evolve/mutators/index.js';
import { EvaluatorPool } from '../../../src/evolve/pool/index.js';

// A tiny cc window (16 agents, 1.5 scored minutes) where 1P8D is far from the best split (4-6P).
const snapshot = buildSnapshotFromStrings({ workload: 'cc', agents: 16, nodes: 9, split: '4P5D', nodeKinds: 'gb300', mechanics: 'evolving-infra', warmupMinutes: 0.5, minutes: 1.5, seed: 1 });
const schedCost = parseSchedCost('fixed:1');
const offByFar = readFileSync(resolve('test/evolve/fixtures/static-split/static-split.js'), 'utf8').replace('const PREFILL = 4;', 'const PREFILL = 1;');
const replay = (code: string) => evaluatePolicy(snapshot, { name: 'tune-test', source: code }, { schedCost, sandbox: { cpuLimitMs: 1000 } });
const prefillOf = (code: string) => Number(/const PREFILL = (\d+);/.exec(code)![1]);

describe('tune', () => {
  it('moves a constant that is deliberately off toward the best split, and says how in one line', () => {
    const start = replay(offByFar).fitness.tTotal;
    const out = runTuning({ code: offByFar, seed: 7, replays: 8, snapshots: [0], references: [null], baseline: null, maxLiterals: 4 }, (code) => replay(code));
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.replays).toBeLessThanOrEqual(8);
    expect(prefillOf(out.code)).toBeGreaterThan(1);
    // The objective it reports is what the evaluator gives the tuned code, and it is better than the start.
    expect(out.objective).toBe(replay(out.code).fitness.tTotal);
    expect(out.objective).toBeLessThan(start);
    expect(out.baseline).toBe(start);
    expect(out.summary).toMatch(/^tune 1 -> \d+ at top level \(line 6\); \(1\+1\)-ES on 1 literal, \d+ points in \d+ replays, [1-9]\d* better, step 0\.3 -> [\d.]+; objective [\d.]+ -> [\d.]+$/);
    expect(out.summary).not.toContain('\n');
  });

  it('is deterministic: the same request gives the same code and trajectory', () => {
    const request = { code: offByFar, seed: 11, replays: 6, snapshots: [0], references: [null], baseline: null, maxLiterals: 4 };
    expect(runTuning(request, (c) => replay(c))).toEqual(runTuning(request, (c) => replay(c)));
  });

  it('fails as no-edit when nothing beats the start, and when there is no literal', () => {
    const none = runTuning({ code: 'function shouldReschedule(ctx) { return false; }\nfunction schedule(ctx) { return null; }', seed: 1, replays: 4, snapshots: [0], references: [null], baseline: null, maxLiterals: 4 }, (c) => replay(c));
    expect(none).toMatchObject({ ok: false, kind: 'no-edit', message: 'no numeric literal to tune' });
    // A baseline below anything reachable: every point is worse, so no candidate comes out.
    const hopeless = runTuning({ code: offByFar, seed: 3, replays: 4, snapshots: [0], references: [null], baseline: 0, maxLiterals: 4 }, (c) => replay(c));
    expect(hopeless.ok).toBe(false);
    if (!hopeless.ok) expect(hopeless.message).toMatch(/nothing beat the start/);
  });

  describe('inside the evaluator pool', () => {
    let pool: EvaluatorPool;
    beforeAll(() => {
      if (!existsSync(resolve('dist/src/evolve/pool/worker.js'))) execFileSync('npx', ['tsc', '-p', '.'], { stdio: 'ignore' });
      pool = new EvaluatorPool({ snapshot, schedCost, sandbox: { cpuLimitMs: 1000 }, wallLimitMs: 60_000, threads: 1, reuseInSearch: true });
    }, 120_000);
    afterAll(async () => {
      await pool?.close();
    });

    it('the mutator runs one tuning run in a worker and gives one candidate, the same as in-process', async () => {
      const tuner: Tuner = { tune: (r) => pool.tune(r), objective: () => ({ snapshots: [0], references: [null] }) };
      const mutator = createTuneMutator(() => tuner, { replays: 8 });
      const input = { parent: { id: 1, code: offByFar, fitness: null }, children: [], inspirations: [], best: null, recentStrategies: [], rng: new Rng(5) };
      const out = await mutator.mutate(input);
      expect(out.mutator).toBe('tune');
      expect(prefillOf(out.code)).toBeGreaterThan(1);
      const seed = Math.floor(new Rng(5).next() * 2 ** 31);
      const local = runTuning({ code: offByFar, seed, replays: 8, snapshots: [0], references: [null], baseline: null, maxLiterals: 4 }, (c) => replay(c));
      expect(local.ok && local.code).toBe(out.code);
      expect(local.ok && local.summary).toBe(out.editSummary);
    }, 120_000);

    it("given the candidate's own trajectory (its points try it first), the same tuning run", async () => {
      const request = { code: offByFar, seed: 11, replays: 6, snapshots: [0], references: [null], baseline: null, maxLiterals: 4 };
      const own = evaluateTracked(snapshot, { name: 'parent', source: offByFar }, { schedCost, sandbox: { cpuLimitMs: 1000 }, record: true });
      const given = await pool.tune(request, [{ snapshot: 0, trajectory: own.trajectory!, keys: own.trajectoryKeys! }]);
      expect(given).toEqual(runTuning(request, (c) => replay(c)));
    }, 120_000);
  });
});
