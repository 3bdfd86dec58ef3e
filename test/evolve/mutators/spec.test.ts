import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/common/errors.js';
import { Rng } from '../../../src/common/rng.js';
import { createMixedMutator, MutationFailed, parseMutatorSpec, type Mutator } from '../../../src/evolve/mutators/index.js';
import { input, TINY } from './fixtures.js';

describe('parseMutatorSpec', () => {
  it('reads a single mutator and a weighted mix', () => {
    expect(parseMutatorSpec('structural')).toEqual([{ name: 'structural', weight: 1 }]);
    expect(parseMutatorSpec('llm')).toEqual([{ name: 'llm', weight: 1 }]);
    expect(parseMutatorSpec('mix:llm=0.7,structural=0.3')).toEqual([
      { name: 'llm', weight: 0.7 },
      { name: 'structural', weight: 0.3 },
    ]);
    expect(parseMutatorSpec(' mix: llm = 2 , structural = 0 ')).toEqual([
      { name: 'llm', weight: 2 },
      { name: 'structural', weight: 0 },
    ]);
  });

  it('rejects bad specs with a UsageError naming --mutator', () => {
    for (const spec of ['', 'genetic', 'mix:', 'mix:llm', 'mix:llm=x', 'mix:llm=-1', 'mix:llm=1,llm=2', 'mix:gpt=1', 'mix:llm=0,structural=0']) {
      expect(() => parseMutatorSpec(spec), spec).toThrow(UsageError);
      expect(() => parseMutatorSpec(spec), spec).toThrow(/^--mutator/);
    }
  });
});

describe('createMixedMutator', () => {
  const fake = (name: string): Mutator => ({
    name,
    mutate: async (i) => ({ code: i.parent.code, editSummary: name, model: null, promptTokens: null, completionTokens: null }),
  });

  it('draws by weight with the candidate rng, deterministically, and says which one it used', async () => {
    const mix = createMixedMutator([
      { mutator: fake('llm'), weight: 0.7 },
      { mutator: fake('structural'), weight: 0.3 },
    ]);
    expect(mix.name).toBe('mix:llm=0.7,structural=0.3');
    const picks: string[] = [];
    for (let seed = 0; seed < 1000; seed++) picks.push((await mix.mutate(input(TINY, seed))).mutator!);
    const llm = picks.filter((p) => p === 'llm').length;
    expect(llm).toBeGreaterThan(650);
    expect(llm).toBeLessThan(750);
    const again = await mix.mutate({ ...input(TINY, 7), rng: new Rng(7) });
    expect(again.mutator).toBe(picks[7]);
  });

  it('passes a failure of the drawn mutator through', async () => {
    const failing: Mutator = {
      name: 'llm',
      mutate: async () => {
        throw new MutationFailed('rate-limit', '429', { mutator: 'llm' });
      },
    };
    const mix = createMixedMutator([{ mutator: failing, weight: 1 }]);
    await expect(mix.mutate(input(TINY, 1))).rejects.toMatchObject({ reason: 'rate-limit', mutator: 'llm' });
  });
});
