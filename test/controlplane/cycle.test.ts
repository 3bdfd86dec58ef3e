import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane, type CycleOutcome, type DeployedPolicy } from '../../src/controlplane/index.js';
import { badPolicy, ensureBuilt, fakeStager, integrity, query, smallConfig, smallSnapshot, tmpDir } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

interface Row {
  id: number;
  cycle: number | null;
  iteration: number;
  mutator: string;
  status: string;
  fitness: number | null;
}

function parentsOf(db: string, id: number): number[] {
  return query<{ parent: number }>(db, "SELECT parent FROM candidate_parents WHERE child = ? AND role = 'parent' ORDER BY parent", id).map((r) => r.parent);
}

describe('control plane cycles', () => {
  it('a cycle records its row and candidates; a winner over a bad deployed policy is staged; the next cycle warm-starts from its elites', async () => {
    const db = join(tmpDir(), 'serve.db');
    const stager = fakeStager();
    const bad = badPolicy();
    let deployed: DeployedPolicy = { ...bad, candidateId: null };
    // What the lineage says of the cycle at the moment its winner is staged: recorded first, then staged.
    const atStaging: unknown[] = [];
    const stage = (dir: string, policy: Parameters<typeof stager.stage>[1]) => {
      atStaging.push(query(db, 'SELECT status, winner FROM cycles WHERE id = ?', policy.cycle)[0]);
      return stager.stage(dir, policy);
    };
    const cp = await ControlPlane.open({ dbPath: db, config: smallConfig(), snapshot: () => smallSnapshot(1), deployed: () => deployed, stage, clock: () => 600 });
    try {
      // The starting policy is a row before anything ran, so its deployment can name it.
      const registered = cp.registerPolicy(bad);
      deployed = { ...bad, candidateId: registered };
      expect(cp.registerPolicy(bad)).toBe(registered);
      const initial = cp.recordDeployment({ candidateId: registered, at: 0 });
      expect(initial).toMatchObject({ candidate: registered, replacedCandidate: null, cycle: null, reason: 'initial policy' });

      const first: CycleOutcome = await cp.runCycle();
      expect(first.status, first.reason).toBe('finished');
      expect(first.staged).toBe(true);
      expect(first.best).not.toBeNull();
      expect(first.deployedOnSnapshot).toBeGreaterThan(0);
      // Beats the deployed policy by more than the 2% margin, on the same snapshot.
      expect(first.best!.tTotal).toBeLessThan(first.deployedOnSnapshot! * 0.98);
      expect(first.winner).toMatchObject({ candidateId: first.best!.candidateId, fitness: first.best!.tTotal });
      expect(stager.staged).toHaveLength(1);
      expect(atStaging).toEqual([{ status: 'finished', winner: first.best!.candidateId }]);
      expect(stager.staged[0]!.policy.code).toBe(query<{ code: string }>(db, 'SELECT code FROM candidates WHERE id = ?', first.best!.candidateId)[0]!.code);
      expect(existsSync(join(stager.staged[0]!.dir, 'staged.js'))).toBe(true);

      const [cycle] = query<Record<string, unknown>>(db, 'SELECT * FROM cycles WHERE id = ?', first.cycleId);
      expect(cycle).toMatchObject({ status: 'finished', winner: first.best!.candidateId, best_candidate: first.best!.candidateId, deployed_candidate: first.deployed!.candidateId, started_at: 600, ended_at: 600 });
      expect(cycle!.best_fitness).toBeCloseTo(first.best!.tTotal, 9);
      expect(cycle!.reason).toMatch(/staged/);
      expect(JSON.parse(cycle!.snapshot as string)).toMatchObject({ split: '4P5D', nodes: 9, windowSeconds: 60 });

      const rows1 = query<Row>(db, 'SELECT id, cycle, iteration, mutator, status, fitness FROM candidates WHERE cycle = ? ORDER BY id', first.cycleId);
      // 1 deployed + 3 seeds, then 2 iterations of 2.
      expect(rows1.length).toBe(4 + 2 * 2);
      expect(rows1.filter((r) => r.mutator === 'seed')).toHaveLength(3);
      const deployedRow = rows1.find((r) => r.mutator === 'deployed')!;
      expect(deployedRow.id).toBe(first.deployed!.candidateId);
      expect(parentsOf(db, deployedRow.id)).toEqual([registered]);
      expect(new Set(rows1.map((r) => r.iteration))).toEqual(new Set([0, 1, 2]));

      // The deployment of the winner: what it replaced and its fitness come from the lineage.
      deployed = { name: stager.staged[0]!.policy.name, code: stager.staged[0]!.policy.code, candidateId: first.winner!.candidateId };
      const swap = cp.recordDeployment({ candidateId: first.winner!.candidateId, at: 610, cycleId: first.cycleId });
      expect(swap).toMatchObject({ replacedCandidate: registered, cycle: first.cycleId, fitnessOnSnapshot: first.best!.tTotal });
      expect(swap.reason).toMatch(/lower/);
      expect(cp.currentDeployment()?.id).toBe(swap.id);

      // Cycle 2 starts from cycle 1's elites (re-scored, each naming its elite as parent), not from the seeds.
      const elites = cp.warmStart.map((e) => e.id);
      expect(elites.length).toBeGreaterThan(1);
      const second = await cp.runCycle();
      expect(second.status, second.reason).toBe('finished');
      const rows2 = query<Row>(db, 'SELECT id, cycle, iteration, mutator, status, fitness FROM candidates WHERE cycle = ? ORDER BY id', second.cycleId);
      expect(rows2.some((r) => r.mutator === 'seed')).toBe(false);
      const warm = rows2.filter((r) => r.mutator === 'warm-start');
      expect(warm.length).toBeGreaterThan(0);
      const warmParents = warm.flatMap((r) => parentsOf(db, r.id));
      expect(warmParents.every((p) => elites.includes(p))).toBe(true);
      // The deployed winner is scored once, as 'deployed', with the winner as its parent.
      expect(parentsOf(db, second.deployed!.candidateId)).toEqual([first.winner!.candidateId]);
      expect(warm.length + 1).toBe(elites.length);
      // Iterations continue the run's numbering.
      expect(Math.min(...rows2.map((r) => r.iteration))).toBe(3);
      // Mutated candidates of cycle 2 descend from cycle 2's rows only.
      for (const r of rows2.filter((x) => x.mutator === 'structural')) {
        for (const p of parentsOf(db, r.id)) expect(rows2.map((x) => x.id)).toContain(p);
      }

      // A rollback: the replaced policy is current again.
      const rb = cp.recordRollback({ at: 700, reason: 'p95 TTFT regressed' });
      expect(rb.rolledBack).toMatchObject({ id: swap.id, rolledBackAt: 700, rollbackReason: 'p95 TTFT regressed' });
      expect(rb.current?.candidate).toBe(registered);
    } finally {
      await cp.close();
    }
    expect(integrity(db)).toBe('ok');
    expect(query(db, 'SELECT status FROM runs')).toEqual([{ status: 'interrupted' }]);
  }, 60_000);

  it('with a margin of 100% nothing is ever staged', async () => {
    const db = join(tmpDir(), 'serve.db');
    const stager = fakeStager();
    const bad = badPolicy();
    const cp = await ControlPlane.open({
      dbPath: db,
      config: smallConfig({ margin: 1, iterationsPerCycle: 1 }),
      snapshot: () => smallSnapshot(2),
      deployed: () => ({ ...bad, candidateId: null }),
      stage: stager.stage,
    });
    try {
      const outcome = await cp.runCycle();
      expect(outcome.status, outcome.reason).toBe('finished');
      expect(outcome.staged).toBe(false);
      expect(outcome.winner).toBeNull();
      expect(outcome.reason).toMatch(/not below/);
      expect(outcome.best!.tTotal).toBeLessThan(outcome.deployedOnSnapshot!);
      expect(stager.staged).toHaveLength(0);
      expect(query(db, 'SELECT status, winner FROM cycles')).toEqual([{ status: 'finished', winner: null }]);
      // An unregistered deployed policy is still scored, as a root row of mutator 'deployed'.
      expect(query(db, "SELECT count(*) AS n FROM candidates WHERE mutator = 'deployed' AND cycle IS NOT NULL")).toEqual([{ n: 1 }]);
    } finally {
      await cp.close();
    }
  }, 60_000);

  it('bad settings are refused before the database is created', async () => {
    const db = join(tmpDir(), 'never.db');
    const base = { dbPath: db, snapshot: () => smallSnapshot(), deployed: () => ({ ...badPolicy(), candidateId: null }), stage: () => undefined };
    await expect(ControlPlane.open({ ...base, config: { margin: 2 } })).rejects.toThrow(/margin/);
    await expect(ControlPlane.open({ ...base, config: { seedsDir: '/nonexistent/seeds' } })).rejects.toThrow(/seeds/);
    await expect(ControlPlane.open({ ...base, config: { schedCost: 'sometimes' } })).rejects.toThrow(/sched-cost/);
    expect(existsSync(db)).toBe(false);
    await expect(ControlPlane.open({ ...base, resume: true })).rejects.toThrow(/no such lineage database/);
  });
});

describe('validation on the previous window', () => {
  /** static-4p5d with a prefill count that depends on the replay's seed: 1P8D at seed 1 (training), 4P5D elsewhere (validation). */
  const seedDependent = {
    name: 'static-by-seed',
    code: readFileSync(resolve('seeds/static-4p5d.js'), 'utf8')
      .replace('const PREFILL_NODES = 4;', '')
      .replace('Math.max(lo, PREFILL_NODES)', 'Math.max(lo, ctx.seed === 1 ? 1 : 4)'),
  };
  const onlyStatic = () => {
    const dir = tmpDir('ap-cp-seeds-');
    writeFileSync(join(dir, 'static-4p5d.js'), readFileSync(resolve('seeds/static-4p5d.js')));
    return dir;
  };

  async function cycleWith(policy: { name: string; code: string }, overrides: Parameters<typeof smallConfig>[0] = {}) {
    const db = join(tmpDir(), 'serve.db');
    const stager = fakeStager();
    const requests: Record<string, unknown>[] = [];
    // Training: the window at seed 1; the window before it: seed 2 (another stretch of traffic).
    const snapshot = (request: { endMinutesAgo?: number }) => (requests.push({ ...request }), smallSnapshot(request.endMinutesAgo ? 2 : 1));
    let deployed: DeployedPolicy = { ...policy, candidateId: null };
    const cp = await ControlPlane.open({ dbPath: db, config: smallConfig({ iterationsPerCycle: 0, seedsDir: onlyStatic(), windowMinutes: 1, warmupMinutes: 0.5, ...overrides }), snapshot, deployed: () => deployed, stage: stager.stage, clock: () => 600 });
    try {
      deployed = { ...policy, candidateId: cp.registerPolicy(policy) };
      const outcome = await cp.runCycle();
      return { outcome, requests, stager, db };
    } finally {
      await cp.close();
    }
  }

  it('a best that wins on the training window but not on the previous one is not staged; both are recorded as validated', async () => {
    const { outcome, requests, stager, db } = await cycleWith(seedDependent);
    expect(requests).toEqual([{ windowMinutes: 1, warmupMinutes: 0.5 }, { windowMinutes: 1, warmupMinutes: 0.5, endMinutesAgo: 1 }]);
    expect(outcome.status, outcome.reason).toBe('finished');
    // On training it beats the deployed 1P8D by far...
    expect(outcome.best!.tTotal).toBeLessThan(outcome.deployedOnSnapshot! * 0.98);
    // ...on the previous window the deployed policy is the same 4P5D: no gain, nothing staged.
    expect(outcome.staged).toBe(false);
    expect(stager.staged).toEqual([]);
    expect(outcome.reason).toMatch(/on the previous window .* not below by the margin: nothing staged/);
    expect(outcome.validation).toMatchObject({ passed: false });
    expect(outcome.validation!.best).toBe(outcome.validation!.deployed);
    const rows = query<{ candidate: number; fitness: number }>(db, 'SELECT candidate, fitness FROM validations ORDER BY candidate');
    expect(rows.map((r) => r.candidate).sort()).toEqual([outcome.best!.candidateId, outcome.deployed!.candidateId].sort());
    expect(rows.every((r) => r.fitness === 1)).toBe(true);
    const [cycle] = query<{ snapshot: string; winner: number | null }>(db, 'SELECT snapshot, winner FROM cycles WHERE id = ?', outcome.cycleId);
    expect(cycle!.winner).toBeNull();
    expect(JSON.parse(cycle!.snapshot)).toMatchObject({ seed: 1, validation: { seed: 2, windowSeconds: 60 } });
  });

  it('a best that wins on both windows is staged, with both gains in its reason', async () => {
    const { outcome, stager, db } = await cycleWith(badPolicy());
    expect(outcome.staged, outcome.reason).toBe(true);
    expect(stager.staged).toHaveLength(1);
    expect(outcome.validation).toMatchObject({ passed: true });
    expect(outcome.validation!.passed && outcome.validation!.best < outcome.validation!.deployed * 0.98).toBe(true);
    expect(outcome.reason).toMatch(/lower \(margin 2\.0%\); on the previous window .* lower, staged/);
    const best = query<{ fitness: number }>(db, 'SELECT fitness FROM validations WHERE candidate = ?', outcome.best!.candidateId)[0]!;
    expect(best.fitness).toBeLessThan(0.98);
  });

  it('without validateWindow the cycle asks for one window and stages on it alone', async () => {
    const { outcome, requests, stager } = await cycleWith(seedDependent, { validateWindow: false });
    expect(requests).toEqual([{ windowMinutes: 1, warmupMinutes: 0.5 }]);
    expect(outcome.staged, outcome.reason).toBe(true);
    expect(outcome.validation).toBeUndefined();
    expect(stager.staged).toHaveLength(1);
  });
});
