import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InfrastructureError, InputError } from '../../src/common/errors.js';
import { openLineageStore, type LineageStore } from '../../src/store/index.js';
import { evaluated, failed, tempDbPath } from './helpers.js';

let path: string;
let store: LineageStore;
let run: number;

beforeEach(() => {
  path = tempDbPath();
  store = openLineageStore(path);
  run = store.createRun({ config: {}, seed: 7 });
});
afterEach(() => store.close());

function counts() {
  const db = new Database(path, { readonly: true });
  const n = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  const result = { candidates: n('candidates'), parents: n('candidate_parents'), migrations: n('migrations'), state: n('run_state') };
  db.close();
  return result;
}

describe('commitIteration', () => {
  it('writes candidates, links, migrations and the checkpoint, with batch references resolved', () => {
    const seeds = store.commitIteration(run, 0, [evaluated({ island: 0 }), evaluated({ island: 1 })], (ids) => ({
      archive: { '0': { '1,0,2': ids[0] }, '1': { '1,0,2': ids[1] } },
      prng: [1, 2, 3, 4],
    }));
    expect(seeds).toHaveLength(2);
    expect(seeds[1]).toBeGreaterThan(seeds[0]!);

    const ids = store.commitIteration(
      run,
      1,
      [
        evaluated({ island: 0, parents: [seeds[0]!], inspirations: [seeds[1]!] }),
        failed('throw', { island: 1, parents: [seeds[1]!] }),
        // A child of a candidate of the same batch.
        evaluated({ island: 0, parents: [{ batch: 0 }] }),
      ],
      (newIds) => ({ prng: [5, 6, 7, 8], archive: { '0': { '1,0,2': newIds[2] }, '1': { '1,0,2': seeds[1] } } }),
      [{ fromIsland: 0, toIsland: 1, candidate: { batch: 2 } }],
    );
    expect(store.getCandidate(ids[2]!)?.parents).toEqual([{ id: ids[0], role: 'parent' }]);
    expect(store.getCandidate(ids[0]!)?.iteration).toBe(1);
    expect(store.listMigrations(run)).toMatchObject([{ iteration: 1, fromIsland: 0, toIsland: 1, candidate: ids[2] }]);
    expect(store.loadCheckpoint(run)).toEqual({
      iteration: 1,
      state: { prng: [5, 6, 7, 8], archive: { '0': { '1,0,2': ids[2] }, '1': { '1,0,2': seeds[1] } } },
    });
    expect(store.listRuns()[0]).toMatchObject({ id: run, candidates: 5, lastIteration: 1 });
  });

  it('keeps checkpoint keys the iteration did not mention', () => {
    store.commitIteration(run, 0, [], { prng: [1], archive: { a: 1 } });
    store.commitIteration(run, 1, [], { prng: [2] });
    expect(store.loadCheckpoint(run)).toEqual({ iteration: 1, state: { prng: [2], archive: { a: 1 } } });
  });

  it('is atomic: a failure anywhere inside writes nothing and hands out no ids', () => {
    const before = store.commitIteration(run, 0, [evaluated()], { step: 0 });
    const snapshot = counts();

    // Throwing while building the checkpoint, after the candidates were inserted.
    expect(() =>
      store.commitIteration(run, 1, [evaluated({ parents: [before[0]!] }), evaluated()], () => {
        throw new Error('evolution state could not be serialised');
      }),
    ).toThrow('could not be serialised');
    expect(counts()).toEqual(snapshot);

    // A constraint failure on the last candidate.
    expect(() => store.commitIteration(run, 1, [evaluated(), evaluated({ fitness: null })], { step: 1 })).toThrow(/CHECK/);
    // A migration of a candidate that does not exist.
    expect(() => store.commitIteration(run, 1, [evaluated()], { step: 1 }, [{ fromIsland: 0, toIsland: 1, candidate: 9999 }])).toThrow(/FOREIGN KEY/);
    // State values that JSON would silently change (NaN -> null, Map -> {}).
    expect(() => store.commitIteration(run, 1, [evaluated()], { step: 1, bad: Number.NaN })).toThrow(/state\.bad is NaN/);
    expect(() => store.commitIteration(run, 1, [evaluated()], { step: 1, archive: new Map([['1,0', 3]]) })).toThrow(/archive is a Map/);
    expect(counts()).toEqual(snapshot);
    expect(store.loadCheckpoint(run)).toEqual({ iteration: 0, state: { step: 0 } });

    // The next good commit takes the next id: nothing was consumed by the failures.
    const next = store.commitIteration(run, 1, [evaluated()], { step: 1 });
    expect(next[0]).toBe(before[0]! + 1);
  });

  it('iterations follow the checkpoint by one; anything else is refused without writing', () => {
    store.commitIteration(run, 0, [evaluated()], {});
    expect(() => store.commitIteration(run, 0, [evaluated()], {})).toThrow(InfrastructureError);
    expect(() => store.commitIteration(run, 2, [evaluated()], {})).toThrow(InfrastructureError);
    expect(store.countCandidates(run)).toBe(1);
    store.commitIteration(run, 1, [evaluated()], {});
    expect(store.loadCheckpoint(run)?.iteration).toBe(1);
  });

  it('refuses bad arguments: reserved key, forward batch reference, negative iteration, unknown run', () => {
    expect(() => store.commitIteration(run, 0, [], { iteration: 3 })).toThrow(/reserved/);
    expect(() => store.commitIteration(run, 0, [evaluated({ parents: [{ batch: 0 }] })], {})).toThrow(TypeError);
    expect(() => store.commitIteration(run, -1, [], {})).toThrow(TypeError);
    expect(() => store.commitIteration(run + 100, 0, [], {})).toThrow(InputError);
    expect(store.loadCheckpoint(run)).toBeUndefined();
    expect(store.countCandidates()).toBe(0);
  });

  it('each run has its own iteration sequence and checkpoint', () => {
    const other = store.createRun({ config: {}, seed: 8 });
    store.commitIteration(run, 0, [evaluated()], { who: 'first' });
    store.commitIteration(other, 0, [evaluated()], { who: 'second' });
    store.commitIteration(other, 1, [evaluated()], { who: 'second' });
    expect(store.loadCheckpoint(run)).toEqual({ iteration: 0, state: { who: 'first' } });
    expect(store.loadCheckpoint(other)?.iteration).toBe(1);
  });
});

describe('runs', () => {
  it('create, finish, reopen, latest and list', () => {
    expect(store.getRun(run)).toMatchObject({ id: run, name: null, config: {}, seed: 7, status: 'running', endedAt: null });
    const second = store.createRun({ name: 'b', config: { islands: 4, mutators: { llm: 0.7, structural: 0.3 } }, seed: 9 });
    expect(store.latestRun()?.id).toBe(second);
    store.finishRun(second, 'interrupted');
    expect(store.getRun(second)).toMatchObject({ status: 'interrupted', endedAt: expect.any(String) });
    expect(store.latestRun('running')?.id).toBe(run);
    store.reopenRun(second);
    expect(store.getRun(second)).toMatchObject({ status: 'running', endedAt: null });
    store.finishRun(second);
    expect(store.getRun(second)?.status).toBe('finished');
    expect(store.listRuns().map((r) => [r.id, r.status, r.candidates, r.bestFitness, r.lastIteration])).toEqual([
      [run, 'running', 0, null, null],
      [second, 'finished', 0, null, null],
    ]);
    expect(() => store.finishRun(999)).toThrow(InputError);
    expect(() => store.reopenRun(999)).toThrow(InputError);
    expect(store.getRun(999)).toBeUndefined();
  });
});

describe('cycles and deployments', () => {
  it('records a cycle, its winner, the deployment timeline and a rollback', () => {
    const [a, b] = store.commitIteration(run, 0, [evaluated({ fitness: 100 }), evaluated({ fitness: 90 })], {});
    const cycle = store.insertCycle({ run, label: 'window 600-900s', snapshot: { from: 600, to: 900, seed: 3 }, startedAt: 900 });
    expect(store.getCycle(cycle)).toMatchObject({ status: 'running', winner: null, snapshot: { from: 600, to: 900, seed: 3 } });
    store.finishCycle(cycle, { endedAt: 960, status: 'finished', winner: b });
    expect(store.listCycles(run)).toMatchObject([{ id: cycle, endedAt: 960, status: 'finished', winner: b }]);

    const first = store.insertDeployment({ run, candidate: a!, deployedAt: 0, reason: 'initial policy' });
    const second = store.insertDeployment({ run, cycle, candidate: b!, deployedAt: 965, fitnessOnSnapshot: 90, replacedCandidate: a!, reason: 'beat the deployed policy by 10%' });
    expect(store.markRolledBack(second, 1200, 'p95 TTFT regressed')).toBe(true);
    expect(store.markRolledBack(second, 1300, 'again')).toBe(false);
    expect(store.markRolledBack(9999, 1300)).toBe(false);
    expect(store.listDeployments(run)).toMatchObject([
      { id: first, candidate: a, rolledBackAt: null },
      { id: second, cycle, candidate: b, replacedCandidate: a, fitnessOnSnapshot: 90, rolledBackAt: 1200, rollbackReason: 'p95 TTFT regressed' },
    ]);
    expect(() => store.finishCycle(999, { endedAt: 1, status: 'failed' })).toThrow(InputError);
  });
});
