import { createLlmMutator, createMixedMutator, createStructuralMutator, parseMutatorSpec, type Mutator } from '../mutators/index.js';
import type { EvolveConfig } from './config.js';

/** `structural`, `llm` or `mix:llm=0.7,structural=0.3`; the llm mutator fails at once without an endpoint. */
export function buildMutator(config: Pick<EvolveConfig, 'mutator' | 'llm'>): Mutator {
  const parts = parseMutatorSpec(config.mutator).map((p) => ({
    mutator: p.name === 'llm' ? createLlmMutator(config.llm) : createStructuralMutator(),
    weight: p.weight,
  }));
  return parts.length === 1 ? parts[0]!.mutator : createMixedMutator(parts);
}
