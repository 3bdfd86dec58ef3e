import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkPolicy, createThreadedStructuralMutator, MutationFailed } from '../../../src/evolve/mutators/index.js';
import { BARE, input, TINY } from './fixtures.js';

// The worker runs compiled from dist/ (npm test builds first).
beforeAll(() => {
  if (!existsSync(resolve('dist/src/evolve/mutators/structural/worker.js'))) execFileSync('npx', ['tsc', '-p', '.'], { stdio: 'ignore' });
}, 120_000);

describe('structural mutator in a worker thread', () => {
  it('gives a valid policy, the same one for the same rng seed, and reports failures as MutationFailed', async () => {
    const mutator = createThreadedStructuralMutator();
    try {
      const a = await mutator.mutate(input(TINY, 7));
      const b = await mutator.mutate(input(TINY, 7));
      expect(a).toEqual(b);
      expect(a.code).not.toBe(TINY);
      expect(checkPolicy(a.code).ok).toBe(true);
      expect(a).toMatchObject({ mutator: 'structural', model: null });
      const error = await mutator.mutate(input(BARE, 1)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MutationFailed);
      expect((error as MutationFailed).reason).toBe('no-edit');
      const aborted = new AbortController();
      aborted.abort();
      await expect(mutator.mutate(input(TINY, 1), aborted.signal)).rejects.toMatchObject({ reason: 'aborted' });
    } finally {
      await mutator.close();
    }
  });
});
