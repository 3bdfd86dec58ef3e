import type { Rng } from '../../../src/common/rng.js';
import type { Candidate } from '../../../src/evolve/archive/index.js';

/** A candidate with readable defaults: its code hash is `h-<id>` unless given. */
export function cand(id: string, fitness: number, features: Record<string, number> = {}, codeHash = `h-${id}`): Candidate {
  return { id, codeHash, fitness, features };
}

/** Features spread over (and beyond) every default bin, including extremes. */
export function randomFeatures(rng: Rng): Record<string, number> {
  const extreme = (): number => rng.pick([0, -1e9, 1e12, Number.NaN, rng.uniform(0, 60)]);
  return {
    rescheduleCount: rng.chance(0.1) ? extreme() : rng.int(0, 60),
    schedCpuMsPerCall: rng.chance(0.1) ? extreme() : Math.exp(rng.uniform(Math.log(0.001), Math.log(20))),
    nodesSwitchedPerReschedule: rng.chance(0.1) ? extreme() : rng.uniform(0, 6),
  };
}

/** A random candidate; a few share a small set of code hashes to exercise de-duplication. */
export function randomCandidate(rng: Rng, id: string): Candidate {
  const codeHash = rng.chance(0.1) ? `dup-${rng.int(0, 4)}` : `h-${id}`;
  return { id, codeHash, fitness: rng.uniform(10, 1000), features: randomFeatures(rng) };
}
