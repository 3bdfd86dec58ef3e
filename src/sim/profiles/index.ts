/** Node-kind and model profiles (evaluator/profiles/*.json): schemas, loading, derived values. */
export { NodeKindSchema, type NodeKind } from './node-kind.js';
export { ModelProfileSchema, type ModelProfile } from './model.js';
export { loadNodeKind, loadModel, listNodeKinds, listModels } from './loader.js';
export { kvCapacity, DEFAULT_BLOCK_TOKENS, type KvCapacity } from './capacity.js';
export { scaleCoefficients, coefficientsFor } from './scaling.js';
export { packageRoot, profilesDir, PROFILES_DIR } from './paths.js';
export { numericLeafPaths } from './schema-helpers.js';
