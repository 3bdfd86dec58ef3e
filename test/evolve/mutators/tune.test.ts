import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { buildSnapshotFromStrings, evaluatePolicy, evaluateTracked, parseSchedCost } from '../../../src/evaluate/index.js';
import { codeHash } from '../../../src/store/index.js';
import { createTuneMutator, runTuning, SearchMemo, type Tuner, type TuneRequest } from '../../../src/evolve/mutators/index.js';
import type { Evaluation } from '../../../src/evaluate/index.js';
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
    expect(out.summary).toMatch(/^tune 1 -> \d+ at top level \(line 6\); \(1\+1\)-ES on 1 literal, \d+ points( \(\d+ known, not replayed\))? in \d+ replays, [1-9]\d* better, step 0\.3 -> [\d.]+; objective [\d.]+ -> [\d.]+$/);
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

  describe('with the run\'s memo (SearchMemo)', () => {
    /** A fake evaluator: T_total 100 + 10 x |PREFILL - 6|, counting its calls (the real one is deterministic the same way). */
    function fake() {
      const calls: string[] = [];
      const replay = (code: string): Evaluation => {
        calls.push(code);
        return { fitness: { tTotal: 100 + 10 * Math.abs(prefillOf(code) - 6) }, failures: [] } as unknown as Evaluation;
      };
      return { replay, calls };
    }
    const asked = (seed: number, replays = 4): TuneRequest => ({ code: offByFar, seed, replays, snapshots: [0], references: [null], baseline: 150, maxLiterals: 4 });

    it('never replays a child twice, in one search or across searches of the parent, and never proposes a child twice', () => {
      const memo = new SearchMemo();
      const runs = [1, 2, 3, 4, 5, 6].map((seed) => {
        const request = asked(seed);
        const { replay, calls } = fake();
        const out = runTuning(memo.withKnown(request), replay);
        memo.record(request, out);
        return { out, calls };
      });
      const all = runs.flatMap((r) => r.calls);
      expect(new Set(all).size).toBe(all.length);
      const proposed = runs.flatMap((r) => (r.out.ok ? [r.out.code] : []));
      expect(proposed.length).toBeGreaterThan(0);
      expect(new Set(proposed).size).toBe(proposed.length);
      // Each ok answer names its child as the memo keys it, and what it measured is what it replayed.
      for (const { out, calls } of runs) {
        expect(out.measured?.map((m) => m.pair)).toEqual(calls.map(codeHash));
        if (out.ok) expect(out.chosen).toBe(codeHash(out.code));
      }
      // A later search reads points rather than replaying them, and says so.
      expect(runs.some((r) => /known, not replayed/.test(r.out.ok ? r.out.summary : r.out.message))).toBe(true);
      // Without the memo, the same searches replay some child more than once.
      const blind = [1, 2, 3, 4, 5, 6].flatMap((seed) => {
        const { replay, calls } = fake();
        runTuning(asked(seed), replay);
        return calls;
      });
      expect(new Set(blind).size).toBeLessThan(blind.length);
      // As the checkpoint keeps it; and a tune search reads no knob search's points (their keys are not code hashes).
      const restored = SearchMemo.restore(JSON.parse(JSON.stringify(memo)), 'checkpoint.searchMemo');
      expect(restored.withKnown(asked(9))).toEqual(memo.withKnown(asked(9)));
      expect(memo.withKnown({ ...asked(9), search: 'knobs' }).known).toBeUndefined();
    });

    it('a search that meets only known points ends, and one that re-finds a proposed child proposes nothing', () => {
      // Every child from PREFILL 1 to 40 known, the best (6) proposed already.
      const known = Array.from({ length: 40 }, (_, i) => {
        const code = offByFar.replace('const PREFILL = 1;', `const PREFILL = ${i + 1};`);
        return { pair: codeHash(code), objective: 100 + 10 * Math.abs(i + 1 - 6), proposed: i + 1 === 6 };
      });
      const { replay, calls } = fake();
      // From PREFILL 5 (objective 110): only 6 (100) beats it, and 6 was proposed.
      const out = runTuning({ ...asked(1, 8), code: offByFar.replace('const PREFILL = 1;', 'const PREFILL = 5;'), baseline: 110, known }, replay);
      expect(calls).toEqual([]);
      expect(out).toMatchObject({ ok: false, kind: 'no-edit', replays: 0 });
      if (!out.ok) expect(out.message).toMatch(/32 known, not replayed.*a child an earlier search proposed/);
    });

    it('what it hands out does not depend on the order searches answered in', () => {
      const parents = [offByFar, offByFar.replace('const PREFILL = 1;', 'const PREFILL = 2;')];
      const answers = [1, 2, 3].flatMap((seed) =>
        parents.map((code) => {
          const request = { ...asked(seed), code };
          return { request, out: runTuning(request, fake().replay) };
        }),
      );
      const inOrder = new SearchMemo();
      const reversed = new SearchMemo();
      for (const a of answers) inOrder.record(a.request, a.out);
      for (const a of [...answers].reverse()) reversed.record(a.request, a.out);
      expect(JSON.stringify(reversed)).toBe(JSON.stringify(inOrder));
      for (const code of parents) expect(reversed.withKnown({ ...asked(9), code })).toEqual(inOrder.withKnown({ ...asked(9), code }));
    });

    it('a checkpoint of before keeps its knob searches\' points as knob points', () => {
      const knobRequest: TuneRequest = { ...asked(1), search: 'knobs' };
      const old = [[codeHash(offByFar), [{ pair: "routing.decode='round-robin'", objective: 90, proposed: true }]]];
      expect(SearchMemo.restore(old, 'checkpoint.knobMemo').withKnown(knobRequest).known).toEqual(old[0]![1]);
      expect(() => SearchMemo.restore([['x', [{ pair: 'a', objective: 'no' }]]], 'checkpoint.searchMemo')).toThrow(/checkpoint\.searchMemo/);
    });
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
