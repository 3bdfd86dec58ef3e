import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/common/errors.js';
import { Rng } from '../../../src/common/rng.js';
import { buildSnapshotFromStrings, evaluatePolicy, parseSchedCost, snapshotKnobsAtStart, type Evaluation } from '../../../src/evaluate/index.js';
import type { InsertableKnob } from '../../../src/evolve/mutators/structural/insert-knob.js';
import { EvaluatorPool } from '../../../src/evolve/pool/index.js';
import { buildMutator } from '../../../src/evolve/engine/build-mutator.js';
import {
  createKnobSearchMutator,
  DEFAULT_OFFLINE_MIX,
  inForceAtStart,
  MutationFailed,
  parseMutatorSpec,
  ROLES_ONLY_OFFLINE_MIX,
  SearchMemo,
  runKnobSearch,
  type Tuner,
  type TuneRequest,
} from '../../../src/evolve/mutators/index.js';
import { BARE, input, TINY } from './fixtures.js';

/** TINY's one plan literal takes any of the 15 (field, value) pairs. */
const PAIRS = 5 + 2 + 2 + 2 + 2 + 2;

/**
 * A fake evaluator: T_total 100, less by the bonus of each knob text the code
 * holds; a code holding `fail` fails. Counts its calls, so that a test sees
 * what the search spent.
 */
function fakeReplay(bonus: Record<string, number>, fail: string[] = []) {
  const calls: { code: string; snapshot: number }[] = [];
  const replay = (code: string, snapshot: number): Evaluation => {
    calls.push({ code, snapshot });
    let tTotal = 100;
    for (const [text, b] of Object.entries(bonus)) if (code.includes(text)) tTotal -= b;
    const failures = fail.some((f) => code.includes(f)) ? [{ kind: 'policy-error' }] : [];
    return { fitness: { tTotal }, failures } as unknown as Evaluation;
  };
  return { replay, calls };
}

const request = (extra: Partial<TuneRequest> = {}): TuneRequest => ({
  search: 'knobs',
  code: TINY,
  seed: 1,
  replays: 8,
  snapshots: [0],
  references: [null],
  baseline: null,
  maxLiterals: 0,
  ...extra,
});

describe('knob search', () => {
  it('reads the pairs earlier searches of the parent measured instead of replaying them, and skips the pair it proposed', () => {
    const memo = new SearchMemo();
    const bonus = { "decode: 'round-robin'": 9, 'maxConcurrent: 2': 1, "prefill: 'session'": 3 };
    // Budget for 7 pairs at a time: three searches of the same parent with other seeds.
    const searches = [1, 2, 3].map((seed) => {
      const asked = request({ seed, baseline: 100 });
      const { replay, calls } = fakeReplay(bonus);
      const out = runKnobSearch(memo.withKnown(asked), replay);
      memo.record(asked, out);
      return { out, replayed: calls.map((c) => c.code) };
    });
    // Never the same child twice, and each known pair cost nothing.
    const all = searches.flatMap((s) => s.replayed);
    expect(new Set(all).size).toBe(all.length);
    expect(searches.map((s) => s.replayed.length)).toEqual([8, 7, 0]);
    expect(all.length).toBe(PAIRS);
    // Without the memo the second search replays 8 pairs again, some of them the first one's.
    const again = fakeReplay(bonus);
    runKnobSearch(request({ seed: 2, baseline: 100 }), again.replay);
    expect(again.calls.filter((c) => searches[0]!.replayed.includes(c.code)).length).toBeGreaterThan(0);
    // The best pair (round-robin decode, 91) is proposed once; a later search does not propose it again.
    const proposed = searches.filter((s) => s.out.ok).map((s) => (s.out.ok ? s.out.code : ''));
    expect(new Set(proposed).size).toBe(proposed.length);
    expect(proposed.filter((c) => c.includes("decode: 'round-robin'"))).toHaveLength(1);
    // The last search replays nothing and still proposes the best known pair not proposed yet.
    const last = searches[2]!.out;
    expect(last.ok && last.summary).toMatch(/known from earlier searches/);
    // As the checkpoint keeps it: the same searches after a restore.
    const restored = SearchMemo.restore(JSON.parse(JSON.stringify(memo)), 'checkpoint.searchMemo');
    expect(restored.withKnown(request({ seed: 4 }))).toEqual(memo.withKnown(request({ seed: 4 })));
    expect(() => SearchMemo.restore([['x', [{ pair: 'a', objective: 'no' }]]], 'checkpoint.searchMemo')).toThrow(/checkpoint\.searchMemo/);
  });

  it('with the budget for every pair, picks the best one and lists all it tried with their objective', () => {
    const { replay, calls } = fakeReplay({ "decode: 'round-robin'": 9, 'maxConcurrent: 2': 1, "prefill: 'session'": 3 });
    const out = runKnobSearch(request({ replays: 1 + PAIRS }), replay);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.code).toBe(TINY.replace('return { roles: splitToRoles(nP, ctx.nodes) }', "return { roles: splitToRoles(nP, ctx.nodes), routing: { decode: 'round-robin' } }"));
    expect(out).toMatchObject({ objective: 91, baseline: 100, replays: 1 + PAIRS });
    expect(calls).toHaveLength(1 + PAIRS);
    expect(new Set(calls.map((c) => c.code)).size).toBe(1 + PAIRS);
    expect(out.summary).toMatch(
      /^knob-search: insert knob routing\.decode = 'round-robin' in schedule's plan \(line 28\); 15 of 15 pairs in 16 replays from 100\.000: .+; objective 100\.000 -> 91\.0000$/,
    );
    expect(out.summary).toContain("routing.decode='round-robin' 91.0000");
    expect(out.summary).toContain("routing.prefill='session' 97.0000");
    expect(out.summary).toContain('transitions.maxConcurrent=2 99.0000');
    expect(out.summary).not.toContain('\n');
  });

  it('respects the budget: the baseline and each pair cost one replay per snapshot, and no more than the budget is spent', () => {
    for (const [replays, snapshots, baseline, pairs] of [
      [8, [0], null, 7],
      [8, [0], 100, 8],
      [5, [0, 1], null, 1],
      [6, [0, 1], null, 2],
      [3, [0, 1], 100, 1],
    ] as const) {
      const { replay, calls } = fakeReplay({ 'routing:': 1 });
      const out = runKnobSearch(request({ replays, snapshots: [...snapshots], references: snapshots.map(() => null), baseline }), replay);
      const spent = (baseline === null ? snapshots.length : 0) + pairs * snapshots.length;
      expect(calls, `budget ${replays} on ${snapshots.length} snapshots`).toHaveLength(spent);
      expect(out.replays).toBe(spent);
      expect(spent).toBeLessThanOrEqual(replays);
      const summary = out.ok ? out.summary : out.message;
      expect(summary).toContain(`${pairs} of ${PAIRS} pairs in ${spent} replays`);
    }
  });

  it('within the budget takes the best pair it tried, in the order its seed gives', () => {
    // Every pair is worth a different amount: the child is the best of the 4 tried.
    const bonus = { "prefill: 'predicted-ttft'": 1, "prefill: 'cache-affinity'": 2, "prefill: 'dynamo-kv'": 3, "prefill: 'even-load'": 4, "prefill: 'session'": 5, "decode: 'least-loaded'": 6, "decode: 'round-robin'": 7, "order: 'refcount'": 8, "order: 'lru'": 9, "protectWaiting: 'both'": 10, "protectWaiting: 'host'": 11, 'maxConcurrent: 1': 12, 'maxConcurrent: 2': 13, 'maxPrefillTokens: 4096': 14, 'maxPrefillTokens: 8192': 15 };
    const { replay, calls } = fakeReplay(bonus);
    const out = runKnobSearch(request({ replays: 4, baseline: 100, seed: 9 }), replay);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const tried = calls.map((c) => 100 - Object.entries(bonus).reduce((s, [t, b]) => s + (c.code.includes(t) ? b : 0), 0));
    expect(tried).toHaveLength(4);
    expect(out.objective).toBe(Math.min(...tried));
    expect(calls.find((c) => c.code === out.code)).toBeDefined();
  });

  it('a tie keeps the pair tried first, and a failing pair is never taken', () => {
    const { replay, calls } = fakeReplay({ 'routing:': 5, 'eviction:': 5 }, ['routing:']);
    const out = runKnobSearch(request({ replays: PAIRS, baseline: 100, seed: 4 }), replay);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const firstEviction = calls.find((c) => c.code.includes('eviction:'))!;
    expect(out.code).toBe(firstEviction.code);
    expect(out.objective).toBe(95);
    expect(out.summary).toMatch(/routing\.\w+='[a-z-]+' failed/);
  });

  it('is deterministic: the same request gives the same answer, another seed another order', () => {
    const { replay } = fakeReplay({ "decode: 'round-robin'": 9 });
    expect(runKnobSearch(request({ seed: 3 }), replay)).toEqual(runKnobSearch(request({ seed: 3 }), replay));
    const orders = new Set([1, 2, 3, 4, 5].map((seed) => {
      const out = runKnobSearch(request({ seed, replays: 1 + PAIRS }), replay);
      return out.ok ? out.summary : out.message;
    }));
    expect(orders.size).toBe(5);
  });

  it('fails as no-edit when nothing beats the parent, when no plan lacks a knob, and with no budget for one pair', () => {
    const worse = runKnobSearch(request({ replays: 1 + PAIRS }), fakeReplay({ 'roles: splitToRoles(nP, ctx.nodes),': -1 }).replay);
    expect(worse).toMatchObject({ ok: false, kind: 'no-edit', replays: 1 + PAIRS });
    if (!worse.ok) expect(worse.message).toMatch(/^knob-search: 15 of 15 pairs in 16 replays from 100\.000: .+: nothing beat the start$/);
    // Equal is not better.
    expect(runKnobSearch(request({ replays: PAIRS, baseline: 100 }), fakeReplay({}).replay)).toMatchObject({ ok: false, kind: 'no-edit' });
    expect(runKnobSearch(request({ code: BARE }), fakeReplay({}).replay)).toMatchObject({ ok: false, kind: 'no-edit', message: 'schedule returns no plan literal that lacks a knob', replays: 0 });
    const { replay, calls } = fakeReplay({ 'routing:': 1 });
    expect(runKnobSearch(request({ replays: 1 }), replay)).toMatchObject({ ok: false, kind: 'no-edit', replays: 1 });
    expect(calls).toHaveLength(1);
  });

  it('skips a pair in force where the snapshots start, unless the policy names that plan group anywhere', () => {
    const inForce = (knob: InsertableKnob, value: string | number) => knob.key === 'decode' && value === 'least-loaded';
    const { replay, calls } = fakeReplay({});
    const out = runKnobSearch(request({ replays: 1 + PAIRS }), replay, inForce);
    expect(out.ok ? out.summary : out.message).toMatch(/^knob-search: 14 of 14 pairs \(1 in force skipped\) in 15 replays/);
    expect(calls.some((c) => c.code.includes("decode: 'least-loaded'"))).toBe(false);
    // A policy that reads or sets routing somewhere may change it during the run: the in-force value is then a real edit.
    for (const names of ["const seen = ctx.mechanics.routing;\n", 'const { routing } = ctx.mechanics;\n']) {
      const code = TINY.replace('function schedule(ctx) {\n', `function schedule(ctx) {\n  ${names}`);
      const again = fakeReplay({});
      const o = runKnobSearch(request({ code, replays: 1 + PAIRS }), again.replay, inForce);
      expect(o.ok ? o.summary : o.message).toMatch(/^knob-search: 15 of 15 pairs in 16 replays/);
    }
    const all = runKnobSearch(request({ code: TINY }), fakeReplay({}).replay, () => true);
    expect(all).toMatchObject({ ok: false, kind: 'no-edit', message: 'knob-search: all 15 pairs are the settings in force', replays: 0 });
  });
});

/** A tuner that runs the search in-process on the fake evaluator and keeps the requests. */
function fakeTuner(bonus: Record<string, number>): Tuner & { requests: TuneRequest[] } {
  const requests: TuneRequest[] = [];
  return {
    requests,
    async tune(r) {
      requests.push(r);
      return runKnobSearch(r, fakeReplay(bonus).replay);
    },
    objective: () => ({ snapshots: [0], references: [null] }),
  };
}

describe('knob-search mutator', () => {
  it("sends a knob search seeded by the candidate's rng, with the parent's fitness as baseline, and gives its child", async () => {
    const tuner = fakeTuner({ "decode: 'round-robin'": 9 });
    const mutator = createKnobSearchMutator(() => tuner, { replays: PAIRS });
    const out = await mutator.mutate(input(TINY, 5, { parent: { id: 1, code: TINY, fitness: 100 } }));
    expect(out.mutator).toBe('knob-search');
    expect(out.code).toContain("routing: { decode: 'round-robin' }");
    expect(out.editSummary).toMatch(/^knob-search: insert knob routing\.decode = 'round-robin'/);
    expect(tuner.requests[0]).toMatchObject({ search: 'knobs', code: TINY, replays: PAIRS, baseline: 100, snapshots: [0], references: [null], seed: Math.floor(new Rng(5).next() * 2 ** 31) });
    const again = await createKnobSearchMutator(() => fakeTuner({ "decode: 'round-robin'": 9 }), { replays: PAIRS }).mutate(input(TINY, 5, { parent: { id: 1, code: TINY, fitness: 100 } }));
    expect(again).toEqual(out);
  });

  it('fails typed: no-edit when nothing is better, endpoint without a tuner', async () => {
    const none = await createKnobSearchMutator(() => fakeTuner({})).mutate(input(TINY, 1, { parent: { id: 2, code: TINY, fitness: 100 } })).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(MutationFailed);
    expect(none).toMatchObject({ reason: 'no-edit', mutator: 'knob-search' });
    expect((none as MutationFailed).message).toMatch(/8 of 15 pairs in 8 replays/);
    const lone = await createKnobSearchMutator(() => undefined).mutate(input(TINY, 1)).catch((e: unknown) => e);
    expect(lone).toMatchObject({ reason: 'endpoint', mutator: 'knob-search' });
  });
});

describe('the engine wires knob-search', () => {
  const llm = { baseURL: 'http://127.0.0.1:1/v1', apiKey: 'x', model: 'm', timeoutMs: 1000, maxRetries: 0 };

  it('builds it with the tuner and --knob-replays as its budget, and refuses it without a tuner', async () => {
    const tuner = fakeTuner({ 'eviction:': 1 });
    const mutator = buildMutator({ mutator: 'knob-search', llm }, { tuner: () => tuner, tuneReplays: 3, knobReplays: 5 });
    expect(mutator.name).toBe('knob-search');
    await mutator.mutate(input(TINY, 2, { parent: { id: 1, code: TINY, fitness: 100 } }));
    expect(tuner.requests[0]).toMatchObject({ search: 'knobs', replays: 5 });
    expect(() => buildMutator({ mutator: 'mix:structural=1,knob-search=1', llm })).toThrow(UsageError);
    expect(() => buildMutator({ mutator: 'mix:structural=1,knob-search=0', llm })).not.toThrow();
  });

  it('the default mix searches knobs instead of drawing one; the roles-only mix has neither', () => {
    const def = parseMutatorSpec(DEFAULT_OFFLINE_MIX);
    const roles = parseMutatorSpec(ROLES_ONLY_OFFLINE_MIX);
    expect(def.find((p) => p.name === 'knob-search')!.weight).toBeGreaterThan(0);
    expect(def.some((p) => p.name === 'knob')).toBe(false);
    expect(roles.some((p) => p.name === 'knob' || p.name === 'knob-search')).toBe(false);
    expect(parseMutatorSpec('mix:knob=1,knob-search=2')).toEqual([{ name: 'knob', weight: 1 }, { name: 'knob-search', weight: 2 }]);
  });
});

describe('knob-search inside the evaluator pool', () => {
  // The tune test's tiny cc window (16 agents, 1.5 scored minutes).
  const snapshot = buildSnapshotFromStrings({ workload: 'cc', agents: 16, nodes: 9, split: '4P5D', nodeKinds: 'gb300', mechanics: 'evolving-infra', warmupMinutes: 0.5, minutes: 1.5, seed: 1 });
  const schedCost = parseSchedCost('fixed:1');
  const code = readFileSync(resolve('test/evolve/fixtures/static-split/static-split.js'), 'utf8');
  let pool: EvaluatorPool;
  beforeAll(() => {
    if (!existsSync(resolve('dist/src/evolve/pool/worker.js'))) execFileSync('npx', ['tsc', '-p', '.'], { stdio: 'ignore' });
    pool = new EvaluatorPool({ snapshot, schedCost, sandbox: { cpuLimitMs: 1000 }, wallLimitMs: 60_000, threads: 1, reuseInSearch: true });
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
  });

  it('a worker runs the search on its snapshots, with the answer of the same search in-process', async () => {
    const r = request({ code, seed: 12, replays: 4 });
    const pooled = await pool.tune(r);
    // evolving-infra starts with predicted-ttft, least-loaded, refcount and protectWaiting 'both': the worker skips those 4.
    const atStart = snapshotKnobsAtStart(snapshot);
    expect(atStart.routing).toMatchObject({ prefill: 'predicted-ttft', decode: 'least-loaded' });
    const local = runKnobSearch(r, (c) => evaluatePolicy(snapshot, { name: 'tune', source: c }, { schedCost, sandbox: { cpuLimitMs: 1000 } }), inForceAtStart([atStart]));
    expect(pooled).toEqual(local);
    expect(pooled.ok ? pooled.summary : pooled.message).toMatch(/^knob-search: .*3 of 11 pairs \(4 in force skipped\) in 4 replays/);
  }, 120_000);
});
