import { UsageError } from '../../common/errors.js';
import {
  createCrossoverMutator,
  createKnobMutator,
  createKnobSearchMutator,
  createLlmMutator,
  createMixedMutator,
  createStructuralMutator,
  createThreadedStructuralMutator,
  createTuneMutator,
  parseMutatorSpec,
  type Mutator,
  type Tuner,
} from '../mutators/index.js';
import type { EvolveConfig } from './config.js';

export interface BuildMutatorOptions {
  /**
   * The structural mutator runs in a worker thread of its own (close the
   * mutator when done), for a caller whose own thread must stay responsive.
   */
  offThread?: boolean;
  /** Where `tune` gets its evaluator; called at each mutation (the run binds it once its pool exists). */
  tuner?: () => Tuner | undefined;
  /** Replays per tuning run. */
  tuneReplays?: number;
  /** Replays per knob search. */
  knobReplays?: number;
}

/**
 * `structural`, `llm`, `tune`, `crossover`, `knob`, `knob-search` or a `mix:`
 * of them; the llm mutator fails at once without an endpoint; `tune` and
 * `knob-search` need a tuner (an evolution run's evaluator pool), refused as
 * a usage error without one.
 */
export function buildMutator(config: Pick<EvolveConfig, 'mutator' | 'llm'>, options: BuildMutatorOptions = {}): Mutator {
  const structural = options.offThread ? createThreadedStructuralMutator : createStructuralMutator;
  // A weight of 0 keeps a mutator out altogether (a tune=0 part needs no tuner).
  const parts = parseMutatorSpec(config.mutator).filter((p) => p.weight > 0).map((p) => {
    const make = (): Mutator => {
      switch (p.name) {
        case 'llm':
          return createLlmMutator(config.llm);
        case 'tune':
          if (!options.tuner) throw new UsageError(`--mutator '${config.mutator}': tune needs an evolution run's evaluator and is not available here`);
          return createTuneMutator(options.tuner, { replays: options.tuneReplays });
        case 'crossover':
          return createCrossoverMutator();
        case 'knob':
          // One parse and one splice: cheap enough for the caller's thread, unlike structural's retries.
          return createKnobMutator();
        case 'knob-search':
          if (!options.tuner) throw new UsageError(`--mutator '${config.mutator}': knob-search needs an evolution run's evaluator and is not available here`);
          return createKnobSearchMutator(options.tuner, { replays: options.knobReplays });
        default:
          return structural();
      }
    };
    return { mutator: make(), weight: p.weight };
  });
  return parts.length === 1 ? parts[0]!.mutator : createMixedMutator(parts);
}
