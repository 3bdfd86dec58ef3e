import { describe, expect, it } from 'vitest';
import { inBatch, TrajectoryReuse, type DivergedOutcome, type EvalOutcome, type EvalTask } from '../../../src/evolve/pool/index.js';
import { codeHash } from '../../../src/store/index.js';
import type { Evaluation } from '../../../src/evaluate/index.js';

/**
 * A pool that answers at once, as the worker would: a candidate's answers are
 * `answers(code)` (one key per call); a replay of a trajectory reuses it when
 * every key matches, and else stops at the first call that differs; a
 * simulation records a trajectory of `size` bytes with the candidate's keys.
 */
function fakePool(size: (code: string) => number, answers: (code: string) => string[] = (code) => (code.includes('neutral') || code === 'parent' ? ['p0', 'p1', 'p2'] : ['p0', code])) {
  const seen: EvalTask[] = [];
  const keysOf = new WeakMap<Uint8Array, string[]>();
  const recordedBy = new WeakMap<Uint8Array, string>();
  const simulate = (task: EvalTask): EvalOutcome => {
    const trajectory = new Uint8Array(size(task.code));
    keysOf.set(trajectory, answers(task.code));
    recordedBy.set(trajectory, task.code);
    return { ok: true, evaluation: { policy: task.name } as Evaluation, wallMs: 1, reused: false, trajectory, trajectoryKeys: answers(task.code) };
  };
  const replay = (task: EvalTask): EvalOutcome | DivergedOutcome => {
    const recorded = keysOf.get(task.reuse!)!;
    const own = answers(task.code);
    const at = recorded.findIndex((k, i) => own[i] !== k);
    if (at < 0 && own.length === recorded.length) return { ok: true, evaluation: { policy: task.name } as Evaluation, wallMs: 1, reused: true };
    const where = at < 0 ? recorded.length : at;
    return task.stopAtDivergence ? { diverged: { at: where, key: own[where] ?? 'end' }, wallMs: 1 } : simulate(task);
  };
  const pool = {
    threads: 2,
    async evaluate(task: EvalTask): Promise<EvalOutcome> {
      seen.push(task);
      return (task.reuse ? replay(task) : simulate(task)) as EvalOutcome;
    },
    async evaluateOrDiverge(task: EvalTask & { reuse: Uint8Array }): Promise<EvalOutcome | DivergedOutcome> {
      seen.push(task);
      return replay({ ...task, stopAtDivergence: true });
    },
  };
  /** Whose simulation recorded each task's `reuse` (undefined: none given). */
  const tried = (from = 0) => seen.slice(from).map((t) => (t.reuse ? recordedBy.get(t.reuse) : undefined));
  return { pool, seen, tried };
}

/** One task as a batch of its own: sent, awaited, and what it left published. */
const one = (reuse: TrajectoryReuse, t: EvalTask): Promise<EvalOutcome> => inBatch(reuse, () => reuse.evaluate(t));

const task = (code: string, reuseFrom?: string, snapshot?: number): EvalTask => ({ candidateId: -1, name: code, code, ...(reuseFrom ? { reuseFrom } : {}), ...(snapshot !== undefined ? { snapshot } : {}) });

describe('TrajectoryReuse', () => {
  it("sends a child with its parent's trajectory on the same snapshot, and keeps none in the answer", async () => {
    const { pool, seen, tried } = fakePool(() => 10);
    const reuse = new TrajectoryReuse(pool, 1000);
    const parent = await one(reuse, task('parent', undefined, 1));
    expect(parent.ok && ('trajectory' in parent || 'trajectoryKeys' in parent)).toBe(false);
    expect(seen[0]!.record).toBe(true);
    await one(reuse, task('neutral child', codeHash('parent'), 1));
    expect(seen[1]!.reuse?.byteLength).toBe(10);
    expect('reuseFrom' in seen[1]!).toBe(false);
    // Another snapshot: nothing is kept there.
    await one(reuse, task('neutral child', codeHash('parent'), 0));
    expect(seen[2]!.reuse).toBeUndefined();
    // Diverges from its parent (no other trajectory has its answer there), then is simulated.
    await one(reuse, task('other child', codeHash('parent'), 1));
    expect(tried(3)).toEqual(['parent', undefined]);
    expect(reuse.counts).toEqual({ reused: 1, simulated: 3, diverged: 1, reusedOther: 0 });
    // A search from the parent gets its trajectories on the snapshots it asks for.
    expect(reuse.keptFor('parent', [0, 1]).map((t) => [t.snapshot, t.keys])).toEqual([[1, ['p0', 'p1', 'p2']]]);
    // The reused child holds its parent's trajectory as its own.
    await one(reuse, task('neutral grandchild', codeHash('neutral child'), 1));
    expect(seen[5]!.reuse).toBe(seen[1]!.reuse);
    expect(reuse.counts.reused).toBe(2);
    // No parent named: the snapshot's most recent trajectory, which is not a parent's.
    await one(reuse, task('neutral orphan', undefined, 1));
    expect(reuse.counts).toMatchObject({ reused: 3, reusedOther: 1 });
  });

  it("a child that diverges from its parent reuses a kept trajectory with the same answers before there and the child's answer there", async () => {
    const behaviour: Record<string, string[]> = {
      parent: ['a', 'b', 'c'],
      sibling: ['a', 'x', 'y'],
      stranger: ['z', 'x', 'y'],
      'like sibling': ['a', 'x', 'y'],
      'like sibling, then not': ['a', 'x', 'w'],
    };
    const { pool, tried } = fakePool(() => 10, (code) => behaviour[code]!);
    const reuse = new TrajectoryReuse(pool, 1000);
    await one(reuse, task('parent'));
    // No parent: the most recent trajectory on the snapshot is tried (every one starts at the snapshot's first ctx).
    await one(reuse, task('stranger'));
    // Diverges from the parent at call 1 with x: the stranger has x there too, but not the parent's answer before it.
    await one(reuse, task('sibling', codeHash('parent')));
    expect(tried()).toEqual([undefined, 'parent', undefined, 'parent', undefined]);
    expect(reuse.counts).toEqual({ reused: 0, simulated: 3, diverged: 2, reusedOther: 0 });

    // Diverges from the parent at call 1 with x, where the sibling has x after the parent's answers: the sibling's is its own.
    await one(reuse, task('like sibling', codeHash('parent')));
    expect(tried(5)).toEqual(['parent', 'sibling']);
    expect(reuse.counts).toMatchObject({ reused: 1, reusedOther: 1 });

    // Follows the sibling's trajectory past call 1, diverges at call 2 where no kept trajectory has its answer: simulated.
    await one(reuse, task('like sibling, then not', codeHash('parent')));
    expect(tried(7)).toEqual(['parent', 'sibling', undefined]);
    expect(reuse.counts).toEqual({ reused: 1, simulated: 4, diverged: 3, reusedOther: 1 });
  });

  it("sends a task its own code's trajectory on the snapshot first, before its parent's", async () => {
    const behaviour: Record<string, string[]> = { reference: ['a', 'b'], parent: ['a', 'c'] };
    const { pool, tried } = fakePool(() => 10, (code) => behaviour[code]!);
    const reuse = new TrajectoryReuse(pool, 1000);
    await one(reuse, task('reference', undefined, 1));
    await one(reuse, task('parent', undefined, 1));
    // The same code again (a seed that is also the reference), even naming a parent: its own replay, reused at once.
    await one(reuse, task('reference', codeHash('parent'), 1));
    expect(tried(3)).toEqual(['reference']);
    // Not on another snapshot, where it never ran.
    await one(reuse, task('reference', undefined, 0));
    expect(tried(4)).toEqual([undefined]);
    expect(reuse.counts).toEqual({ reused: 1, simulated: 3, diverged: 1, reusedOther: 0 });
  });

  it('forgets the least recently used trajectories past its bytes', async () => {
    const { pool, tried } = fakePool(() => 40, (code) => [code]);
    const reuse = new TrajectoryReuse(pool, 100);
    for (const code of ['a', 'b']) await one(reuse, task(code));
    await one(reuse, task('x', codeHash('a'))); // a is now the most recent; x pushes out b
    await one(reuse, task('y', codeHash('b'))); // b is gone: the most recent, x, is tried; y pushes out a
    await one(reuse, task('z', codeHash('a')));
    expect(tried()).toEqual([undefined, 'a', undefined, 'a', undefined, 'x', undefined, 'y', undefined]);
    await one(reuse, task('w', codeHash('y')));
    expect(tried(9)).toEqual(['y', undefined]);
  });

  it('keeps nothing larger than its whole budget', async () => {
    const { pool, seen } = fakePool(() => 500);
    const reuse = new TrajectoryReuse(pool, 100);
    await one(reuse, task('a'));
    await one(reuse, task('b', codeHash('a')));
    expect(seen[1]!.reuse).toBeUndefined();
  });

  it('what a task tries does not depend on the order the tasks before it finished in: only on what was published when it was sent', async () => {
    const run = async (order: string[]) => {
      const { pool, tried } = fakePool(() => 10, (code) => (code === 'd' ? ['b'] : [code]));
      // Each simulation waits until the test lets its code finish.
      const release = new Map<string, () => void>();
      const gated = {
        threads: 2,
        evaluate: async (t: EvalTask) => {
          await new Promise<void>((go) => release.set(t.code, go));
          return pool.evaluate(t);
        },
        evaluateOrDiverge: (t: EvalTask & { reuse: Uint8Array }) => pool.evaluateOrDiverge(t),
      };
      const reuse = new TrajectoryReuse(gated, 1000);
      const from = reuse.mark();
      const batch = [reuse.evaluate(task('a')), reuse.evaluate(task('b'))];
      const to = reuse.mark();
      await Promise.resolve();
      release.get(order[0]!)!();
      await batch[order[0] === 'a' ? 0 : 1];
      // Sent while its batch is in flight, one of them done: the done one's trajectory is not tried.
      const early = reuse.evaluate(task('c', codeHash(order[0]!)));
      release.get(order[1]!)!();
      await Promise.all(batch);
      await Promise.resolve();
      release.get('c')!();
      await early;
      reuse.publish(from, to);
      // Published in the order sent (a, then b), however they finished: the most recent is b's, which d answers like.
      const last = inBatch(reuse, () => reuse.evaluate(task('d')));
      return { tried: (await last, tried()), counts: { ...reuse.counts } };
    };
    const ab = await run(['a', 'b']);
    expect(ab.tried).toEqual([undefined, undefined, undefined, 'b']);
    expect(ab.counts).toEqual({ reused: 1, simulated: 3, diverged: 0, reusedOther: 1 });
    expect(await run(['b', 'a'])).toEqual(ab);
  });
});
