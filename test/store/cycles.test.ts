import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openLineageStore, SCHEMA_VERSION } from '../../src/store/index.js';
import { evaluated, tempDbPath } from './helpers.js';

describe('cycles of the continuous mode (schema version 2)', () => {
  it('a version-1 database gains the cycle outcome columns and keeps its rows', () => {
    const path = tempDbPath();
    const store = openLineageStore(path);
    const run = store.createRun({ config: {}, seed: 1 });
    const cycle = store.insertCycle({ run, label: 'old', startedAt: 10 });
    store.finishCycle(cycle, { endedAt: 20, status: 'finished' });
    store.close();
    // Back to what version 1 wrote.
    const raw = new Database(path);
    // Version 3 first (validation), then version 2's cycle columns.
    raw.exec('DROP TABLE validations');
    raw.exec('ALTER TABLE candidates DROP COLUMN snapshots');
    for (const column of ['reason', 'best_candidate', 'best_fitness', 'deployed_candidate', 'deployed_fitness']) raw.exec(`ALTER TABLE cycles DROP COLUMN ${column}`);
    raw.pragma('user_version = 1');
    raw.close();

    const reopened = openLineageStore(path);
    expect(reopened.getCycle(cycle)).toMatchObject({ label: 'old', status: 'finished', endedAt: 20, reason: null, bestCandidate: null });
    reopened.close();
    const check = new Database(path, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(3);
    check.close();
  });

  it('records why a cycle ended, its best and the deployed policy; interrupts cycles left running', () => {
    const store = openLineageStore(tempDbPath());
    const run = store.createRun({ config: {}, seed: 1 });
    const [a, b] = store.commitIteration(run, 0, [evaluated({ fitness: 60 }), evaluated({ fitness: 50 })], {});
    const done = store.insertCycle({ run, startedAt: 100 });
    store.finishCycle(done, { endedAt: 130, status: 'finished', winner: b, reason: 'staged', best: { candidate: b!, fitness: 50 }, deployed: { candidate: a!, fitness: 60 } });
    expect(store.getCycle(done)).toMatchObject({ winner: b, reason: 'staged', bestCandidate: b, bestFitness: 50, deployedCandidate: a, deployedFitness: 60 });
    const killed = store.insertCycle({ run, startedAt: 200 });
    expect(store.interruptRunningCycles(run, 150, 'process died')).toEqual([killed]);
    // Never ends before it started.
    expect(store.getCycle(killed)).toMatchObject({ status: 'interrupted', endedAt: 200, reason: 'process died' });
    expect(store.interruptRunningCycles(run, 300, 'again')).toEqual([]);
    store.close();
  });

  it('the current deployment is the latest not rolled back; run state outside iterations', () => {
    const store = openLineageStore(tempDbPath());
    const run = store.createRun({ config: {}, seed: 1 });
    const [a, b] = store.commitIteration(run, 0, [evaluated(), evaluated()], { islands: 1 });
    expect(store.currentDeployment(run)).toBeUndefined();
    const first = store.insertDeployment({ run, candidate: a!, deployedAt: 0 });
    const second = store.insertDeployment({ run, candidate: b!, deployedAt: 50, replacedCandidate: a! });
    expect(store.currentDeployment(run)?.id).toBe(second);
    store.markRolledBack(second, 60);
    expect(store.currentDeployment(run)?.id).toBe(first);

    store.saveRunState(run, { simSeconds: 61.5, warmStart: [{ id: a }] });
    expect(store.loadRunState(run)).toEqual({ islands: 1, simSeconds: 61.5, warmStart: [{ id: a }] });
    // The checkpoint is untouched and its key stays reserved.
    expect(store.loadCheckpoint(run)?.iteration).toBe(0);
    expect(() => store.saveRunState(run, { iteration: 5 })).toThrow(/reserved/);
    store.close();
  });
});
