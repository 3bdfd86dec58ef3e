import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane } from '../../src/controlplane/index.js';
import { beatsDeployed } from '../../src/controlplane/run-cycle.js';
import { badPolicy, ensureBuilt, fakeStager, query, smallConfig, smallSnapshot, tmpDir } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

function open(db: string, start?: Parameters<typeof ControlPlane.open>[0]['start']) {
  return ControlPlane.open({ dbPath: db, config: smallConfig(), start, snapshot: () => smallSnapshot(1), deployed: () => ({ ...badPolicy(), candidateId: null }), stage: fakeStager().stage, clock: () => 0 });
}

describe('control plane bookkeeping', () => {
  it('stages only on a strict improvement: an equal T_total is not better, margin 0 included', () => {
    expect(beatsDeployed(100, 100, 0)).toBe(false);
    expect(beatsDeployed(99.999, 100, 0)).toBe(true);
    expect(beatsDeployed(98, 100, 0.02)).toBe(false);
    expect(beatsDeployed(97.99, 100, 0.02)).toBe(true);
    expect(beatsDeployed(101, 100, 0)).toBe(false);
    expect(beatsDeployed(Number.NaN, 100, 0)).toBe(false);
    expect(beatsDeployed(50, Number.NaN, 0)).toBe(false);
  });

  it('a new run, its settings, its starting policy and deployment are written together', async () => {
    const db = join(tmpDir(), 'serve.db');
    const bad = badPolicy();
    const cp = await open(db, { state: { serveSettings: { workload: 'cc' } }, policy: { ...bad, reason: 'starting policy' } });
    try {
      expect(cp.loadSettings('serveSettings')).toEqual({ workload: 'cc' });
      const d = cp.currentDeployment()!;
      expect(d).toMatchObject({ deployedAt: 0, replacedCandidate: null, reason: 'starting policy' });
      expect(cp.candidateCode(d.candidate)).toBe(bad.code);
      expect(query(db, 'SELECT mutator FROM candidates WHERE id = ?', d.candidate)).toEqual([{ mutator: 'deployed' }]);
    } finally {
      await cp.close();
    }
  });

  it('when part of the start cannot be written, nothing of the run is', async () => {
    const db = join(tmpDir(), 'serve.db');
    // 'iteration' is a reserved run_state key: the start fails after the run row was inserted.
    await expect(open(db, { state: { iteration: 1 }, policy: badPolicy() })).rejects.toThrow(/iteration/);
    expect(existsSync(db)).toBe(true);
    expect(query(db, 'SELECT count(*) AS n FROM runs')).toEqual([{ n: 0 }]);
    expect(query(db, 'SELECT count(*) AS n FROM candidates')).toEqual([{ n: 0 }]);
    expect(query(db, 'SELECT count(*) AS n FROM deployments')).toEqual([{ n: 0 }]);
  });

  it('a policy staged by hand is recorded as an external candidate, with its deployment and its rollback', async () => {
    const db = join(tmpDir(), 'serve.db');
    const cp = await open(db, { policy: badPolicy() });
    try {
      const start = cp.currentDeployment()!;
      const hotfix = 'function shouldReschedule(ctx) { return false; }\nfunction schedule(ctx) { return { roles: ctx.plan.roles }; }\n';
      const d = cp.recordExternalDeployment({ name: 'hotfix.js', code: hotfix, at: 125 });
      expect(d).toMatchObject({ deployedAt: 125, cycle: null, replacedCandidate: start.candidate, rolledBackAt: null, reason: 'hotfix.js, staged by hand' });
      expect(cp.isCandidateOfRun(d.candidate)).toBe(true);
      expect(query(db, 'SELECT mutator, code, status, failure_kind AS kind FROM candidates WHERE id = ?', d.candidate)).toEqual([
        { mutator: 'external', code: hotfix, status: 'rejected', kind: 'unscored' },
      ]);
      expect(cp.currentDeployment()!.id).toBe(d.id);
      const { rolledBack, current } = cp.recordRollback({ at: 140, reason: '3 failed reschedule attempts in a row' });
      expect(rolledBack).toMatchObject({ id: d.id, rolledBackAt: 140 });
      expect(current!.id).toBe(start.id);
      // The same code staged again is the same candidate, deployed again.
      const again = cp.recordExternalDeployment({ name: 'hotfix-copy.js', code: hotfix, at: 200 });
      expect(again.candidate).toBe(d.candidate);
      expect(query(db, "SELECT count(*) AS n FROM candidates WHERE mutator = 'external'")).toEqual([{ n: 1 }]);
      expect(query<{ value: string }>(db, "SELECT value FROM run_state WHERE key = 'simSeconds'")[0]!.value).toBe('200');
    } finally {
      await cp.close();
    }
  });
});
