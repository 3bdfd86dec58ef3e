/** The offline evolution loop: seeds -> islands -> mutate -> evaluate in parallel -> lineage (design section 7). */
export { EvolutionRun, type IterationProgress, type RunHooks } from './run.js';
export { EvolveConfigSchema, type EvolveConfig, type EvolveConfigInput } from './config.js';
export { loadSeeds, type SeedPolicy } from './seeds.js';
export { buildMutator } from './build-mutator.js';
export type { EvolveSummary } from './summary.js';
