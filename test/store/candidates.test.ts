import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { codeHash, openLineageStore, type LineageStore } from '../../src/store/index.js';
import { evaluated, failed, tempDbPath } from './helpers.js';

let path: string;
let store: LineageStore;
let run: number;

beforeEach(() => {
  path = tempDbPath();
  store = openLineageStore(path);
  run = store.createRun({ name: 'test', config: { islands: 2, mutators: ['structural'] }, seed: 42 });
});
afterEach(() => store.close());

describe('candidates', () => {
  it('round-trips every column, with its parents and the default code hash', () => {
    const parent = store.insertCandidate({ run, iteration: 0, ...evaluated({ code: 'function schedule() {}' }) });
    const inspiration = store.insertCandidate({ run, iteration: 0, ...evaluated({ island: 1 }) });
    const id = store.insertCandidate({
      run,
      iteration: 1,
      ...evaluated({
        island: 1,
        mutator: 'llm',
        model: 'qwen-coder',
        editSummary: 'raise the threshold',
        code: '  function   schedule() {}\n\n',
        fitness: 87.5,
        promptTokens: 2000,
        completionTokens: 150,
        parents: [parent],
        inspirations: [inspiration],
      }),
    });
    const c = store.getCandidate(id)!;
    expect(c).toMatchObject({
      id,
      run,
      cycle: null,
      island: 1,
      iteration: 1,
      mutator: 'llm',
      model: 'qwen-coder',
      editSummary: 'raise the threshold',
      code: '  function   schedule() {}\n\n',
      status: 'evaluated',
      failureKind: null,
      fitness: 87.5,
      cell: '1,0,2',
      promptTokens: 2000,
      completionTokens: 150,
      parents: [
        { id: parent, role: 'parent' },
        { id: inspiration, role: 'inspiration' },
      ],
    });
    expect(c.breakdown).toEqual(evaluated().breakdown);
    expect(c.metrics).toEqual({ throughput: 12.5, ttft: { p50: 0.4, p95: 1.2 } });
    expect(c.features).toEqual(evaluated().features);
    expect(c.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Whitespace-only differences hash alike, so the child is a duplicate of its parent's code.
    expect(c.codeHash).toBe(codeHash('function schedule() {}'));
    expect(store.findByCodeHash(run, c.codeHash)?.id).toBe(parent);
    expect(store.findByCodeHash(run, codeHash('nothing like it'))).toBeUndefined();
    expect(store.getCandidate(9999)).toBeUndefined();
  });

  it('best: lowest fitness first, ties by id, failed and rejected excluded, per run or overall', () => {
    const ids = [120, 80, 95, 80].map((fitness) => store.insertCandidate({ run, iteration: 0, ...evaluated({ fitness }) }));
    store.insertCandidate({ run, iteration: 0, ...failed('timeout', { fitness: 1 }) });
    store.insertCandidate({ run, iteration: 0, ...failed('duplicate', { status: 'rejected' }) });
    const other = store.createRun({ config: {}, seed: 2 });
    const otherBest = store.insertCandidate({ run: other, iteration: 0, ...evaluated({ fitness: 10 }) });

    expect(store.best(run, 10).map((c) => c.id)).toEqual([ids[1], ids[3], ids[2], ids[0]]);
    expect(store.best(run, 2).map((c) => c.fitness)).toEqual([80, 80]);
    expect(store.best(undefined, 1).map((c) => c.id)).toEqual([otherBest]);
    expect(store.countCandidates(run)).toBe(6);
    expect(store.countCandidates()).toBe(7);
    expect(store.countCandidates(other)).toBe(1);
  });

  it('refuses an evaluated candidate without fitness and a failed one without a kind', () => {
    expect(() => store.insertCandidate({ run, iteration: 0, ...evaluated({ fitness: null }) })).toThrow(/CHECK/);
    expect(() => store.insertCandidate({ run, iteration: 0, ...failed('x', { failureKind: null }) })).toThrow(/CHECK/);
    expect(store.countCandidates()).toBe(0);
  });

  it('refuses a breakdown that would not read back (NaN), writing nothing', () => {
    expect(() =>
      store.insertCandidate({ run, iteration: 0, ...evaluated({ breakdown: { serveSeconds: Number.NaN } }) }),
    ).toThrow(/breakdown\.serveSeconds/);
    expect(store.countCandidates()).toBe(0);
  });

  it('a hand-edited JSON column that no longer parses is an InputError naming file and field', () => {
    const id = store.insertCandidate({ run, iteration: 0, ...evaluated() });
    const db = new Database(path);
    db.prepare('UPDATE candidates SET features = ? WHERE id = ?').run('{"rescheduleCount":"many"}', id);
    db.close();
    expect(() => store.getCandidate(id)).toThrow(InputError);
    expect(() => store.getCandidate(id)).toThrow(new RegExp(`candidates\\.${id}\\.features`));
  });
});

describe('lineage queries', () => {
  /**
   * Three generations with two-parent crossovers and a diamond:
   *
   *   g0a    g0b    unrelated
   *    | \    |        :
   *   g1a  g1b         :        g1b has parents g0a and g0b
   *     \  /           :
   *      g2 . . . . . .         g2 has parents g1a and g1b, and `unrelated` as inspiration
   */
  function tree() {
    const g0a = store.insertCandidate({ run, iteration: 0, ...evaluated({ fitness: 100 }) });
    const g0b = store.insertCandidate({ run, iteration: 0, ...evaluated({ fitness: 110 }) });
    const unrelated = store.insertCandidate({ run, iteration: 0, ...evaluated({ fitness: 90 }) });
    const g1a = store.insertCandidate({ run, iteration: 1, ...evaluated({ fitness: 95, parents: [g0a] }) });
    const g1b = store.insertCandidate({ run, iteration: 1, ...evaluated({ fitness: 97, parents: [g0a, g0b] }) });
    const g2 = store.insertCandidate({
      run,
      iteration: 2,
      ...evaluated({ fitness: 80, parents: [g1a, g1b], inspirations: [unrelated] }),
    });
    return { g0a, g0b, unrelated, g1a, g1b, g2 };
  }

  it('ancestry: every ancestor once, at its shortest depth, with its parent links; inspirations are not ancestors', () => {
    const t = tree();
    const entries = store.ancestry(t.g2);
    expect(entries.map((e) => [e.candidate.id, e.depth])).toEqual([
      [t.g2, 0],
      [t.g1a, 1],
      [t.g1b, 1],
      [t.g0a, 2],
      [t.g0b, 2],
    ]);
    const parentsOf = Object.fromEntries(entries.map((e) => [e.candidate.id, e.parents]));
    expect(parentsOf[t.g2]).toEqual([t.g1a, t.g1b]);
    expect(parentsOf[t.g1b]).toEqual([t.g0a, t.g0b]);
    expect(parentsOf[t.g0a]).toEqual([]);
    expect(store.ancestry(t.g0a).map((e) => e.candidate.id)).toEqual([t.g0a]);
    expect(store.ancestry(12345)).toEqual([]);

    // g0a is both a direct parent (depth 1) and a great-grandparent (depth 3): listed once, at 1.
    const g3 = store.insertCandidate({ run, iteration: 3, ...evaluated({ parents: [t.g2, t.g0a] }) });
    const again = store.ancestry(g3);
    expect(again.filter((e) => e.candidate.id === t.g0a).map((e) => e.depth)).toEqual([1]);
    expect(again).toHaveLength(6);
  });

  it('children: by parent and by inspiration, oldest first', () => {
    const t = tree();
    expect(store.children(t.g0a).map((c) => [c.candidate.id, c.role])).toEqual([
      [t.g1a, 'parent'],
      [t.g1b, 'parent'],
    ]);
    expect(store.children(t.unrelated).map((c) => [c.candidate.id, c.role])).toEqual([[t.g2, 'inspiration']]);
    expect(store.children(t.g2)).toEqual([]);
    expect(store.parents(t.g2)).toEqual([
      { id: t.g1a, role: 'parent' },
      { id: t.g1b, role: 'parent' },
      { id: t.unrelated, role: 'inspiration' },
    ]);
  });

  it('a parent link to a later candidate is refused (the graph stays acyclic)', () => {
    const a = store.insertCandidate({ run, iteration: 0, ...evaluated() });
    const b = store.insertCandidate({ run, iteration: 0, ...evaluated() });
    const db = new Database(path);
    expect(() => db.prepare("INSERT INTO candidate_parents VALUES (?, ?, 'parent')").run(a, b)).toThrow(/CHECK/);
    db.close();
  });

  it('deleting a run deletes its candidates, links, checkpoints and deployments', () => {
    const t = tree();
    store.commitIteration(run, 3, [evaluated({ parents: [t.g2] })], { prng: [1, 2] });
    store.insertDeployment({ run, candidate: t.g2, deployedAt: 10 });
    const db = new Database(path);
    db.pragma('foreign_keys = ON');
    db.prepare('DELETE FROM runs WHERE id = ?').run(run);
    for (const table of ['candidates', 'candidate_parents', 'run_state', 'deployments']) {
      expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()).toBe(0);
    }
    db.close();
  });
});
