import { describe, expect, it } from 'vitest';
import { TrajectoryReuse, type EvalOutcome, type EvalTask } from '../../../src/evolve/pool/index.js';
import { codeHash } from '../../../src/store/index.js';
import type { Evaluation } from '../../../src/evaluate/index.js';

/** A pool that answers at once: each evaluation records a trajectory of `size` bytes; a task with one is "reused". */
function fakePool(size: (code: string) => number) {
  const seen: EvalTask[] = [];
  const pool = {
    threads: 2,
    async evaluate(task: EvalTask): Promise<EvalOutcome> {
      seen.push(task);
      // As the worker does: a reused evaluation packs no trajectory of its own.
      const reused = task.reuse !== undefined && task.code.includes('neutral');
      const trajectory = new Uint8Array(size(task.code)).fill(task.code.length);
      return { ok: true, evaluation: { policy: task.name } as Evaluation, wallMs: 1, reused, ...(reused ? {} : { trajectory }) };
    },
  };
  return { pool, seen };
}

const task = (code: string, reuseFrom?: string, snapshot?: number): EvalTask => ({ candidateId: -1, name: code, code, ...(reuseFrom ? { reuseFrom } : {}), ...(snapshot !== undefined ? { snapshot } : {}) });

describe('TrajectoryReuse', () => {
  it("sends a child with its parent's trajectory on the same snapshot, and keeps none in the answer", async () => {
    const { pool, seen } = fakePool(() => 10);
    const reuse = new TrajectoryReuse(pool, 1000);
    const parent = await reuse.evaluate(task('parent', undefined, 1));
    expect(parent.ok && 'trajectory' in parent).toBe(false);
    expect(seen[0]!.record).toBe(true);
    await reuse.evaluate(task('neutral child', codeHash('parent'), 1));
    expect(seen[1]!.reuse?.byteLength).toBe(10);
    expect('reuseFrom' in seen[1]!).toBe(false);
    // Another snapshot: the parent has no trajectory there.
    await reuse.evaluate(task('neutral child', codeHash('parent'), 0));
    expect(seen[2]!.reuse).toBeUndefined();
    await reuse.evaluate(task('other child', codeHash('parent'), 1));
    expect(reuse.counts).toEqual({ reused: 1, simulated: 3, diverged: 1 });
    // The reused child holds its parent's trajectory as its own.
    await reuse.evaluate(task('neutral grandchild', codeHash('neutral child'), 1));
    expect(seen[4]!.reuse).toBe(seen[1]!.reuse);
    expect(reuse.counts.reused).toBe(2);
  });

  it('forgets the least recently used trajectories past its bytes', async () => {
    const { pool, seen } = fakePool(() => 40);
    const reuse = new TrajectoryReuse(pool, 100);
    for (const code of ['a', 'b']) await reuse.evaluate(task(code));
    await reuse.evaluate(task('x', codeHash('a'))); // a is now the most recent; x pushes out b
    await reuse.evaluate(task('y', codeHash('b')));
    await reuse.evaluate(task('z', codeHash('a')));
    expect(seen.map((t) => t.reuse !== undefined)).toEqual([false, false, true, false, false]);
    // x's and y's own trajectories pushed a out in turn.
    await reuse.evaluate(task('w', codeHash('y')));
    expect(seen[5]!.reuse).toBeDefined();
  });

  it('keeps nothing larger than its whole budget', async () => {
    const { pool, seen } = fakePool(() => 500);
    const reuse = new TrajectoryReuse(pool, 100);
    await reuse.evaluate(task('a'));
    await reuse.evaluate(task('b', codeHash('a')));
    expect(seen[1]!.reuse).toBeUndefined();
  });
});
