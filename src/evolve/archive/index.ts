/**
 * MAP-Elites archives (design section 7): fixed behaviour bins, one archive
 * per island, and the island set with its evaluated-code register.
 */
export { compareElites, type Candidate, type Elite } from './candidate.js';
export {
  binOf,
  DEFAULT_FEATURE_BINS,
  FeatureSpace,
  FeatureSpaceSchema,
  resolveFeatureSpace,
  type FeatureSpaceConfig,
  type FeatureSpaceInput,
} from './features.js';
export { Archive, ArchiveSnapshotSchema, type ArchiveSnapshot, type ConsiderOutcome } from './archive.js';
export {
  IslandSet,
  IslandSetConfigSchema,
  IslandSetSnapshotSchema,
  type IslandSetConfig,
  type IslandSetConfigInput,
  type IslandSetSnapshot,
} from './island-set.js';
