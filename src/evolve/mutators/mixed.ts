import type { MutationInput, MutationOutput, Mutator } from './types.js';

/**
 * Several mutators, one drawn per mutation with the candidate's rng by
 * relative weight. A failure of the drawn one is the mutation's failure: no
 * fallback, so that the lineage says which mutator failed and why.
 */
export function createMixedMutator(parts: { mutator: Mutator; weight: number }[]): Mutator {
  const usable = parts.filter((p) => p.weight > 0);
  if (usable.length === 0) throw new RangeError('a mixed mutator needs at least one part with a weight above 0');
  for (const p of parts) if (!Number.isFinite(p.weight) || p.weight < 0) throw new RangeError(`weight of ${p.mutator.name} must be >= 0, got ${p.weight}`);
  const total = usable.reduce((sum, p) => sum + p.weight, 0);
  const name = 'mix:' + usable.map((p) => `${p.mutator.name}=${p.weight}`).join(',');
  return {
    name,
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      let x = input.rng.next() * total;
      let chosen = usable[usable.length - 1]!.mutator;
      for (const p of usable) {
        x -= p.weight;
        if (x < 0) {
          chosen = p.mutator;
          break;
        }
      }
      const output = await chosen.mutate(input, signal);
      return { ...output, mutator: output.mutator ?? chosen.name };
    },
    async close() {
      await Promise.all(parts.map((p) => p.mutator.close?.()));
    },
  };
}
