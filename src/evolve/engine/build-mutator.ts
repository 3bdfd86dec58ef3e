import { createLlmMutator, createMixedMutator, createStructuralMutator, createThreadedStructuralMutator, parseMutatorSpec, type Mutator } from '../mutators/index.js';
import type { EvolveConfig } from './config.js';

/**
 * `structural`, `llm` or `mix:llm=0.7,structural=0.3`; the llm mutator fails at once without an endpoint.
 * `offThread`: the structural mutator runs in a worker thread of its own
 * (close the mutator when done), for a caller whose own thread must stay responsive.
 */
export function buildMutator(config: Pick<EvolveConfig, 'mutator' | 'llm'>, options: { offThread?: boolean } = {}): Mutator {
  const structural = options.offThread ? createThreadedStructuralMutator : createStructuralMutator;
  const parts = parseMutatorSpec(config.mutator).map((p) => ({
    mutator: p.name === 'llm' ? createLlmMutator(config.llm) : structural(),
    weight: p.weight,
  }));
  return parts.length === 1 ? parts[0]!.mutator : createMixedMutator(parts);
}
