/** The cluster simulator's public surface (design section 3). */
export { Simulator, type SimOptions, type SimResult, type PolicyStats } from './simulator.js';
export {
  runScenario,
  createSimulator,
  parseScenario,
  openWorkload,
  ScenarioSchema,
  RunConfigSchema,
  type Scenario,
  type ScenarioInput,
  type RunConfig,
  type RunConfigInput,
  type RunOptions,
} from './scenario.js';
export { parseMechanics, knobsToReach, knobsAtStart, MechanicsSchema, MECHANICS_PRESETS, type Mechanics, type MechanicsPresetName } from './mechanics.js';
export { parseSplit, formatSplit, rolesFor, type Role } from './split.js';
export { plainPolicy, type PolicyHook, type PolicyAnswer, type PolicyCtx } from './policy-hook.js';
export type { SimMetrics, SliceMetrics, TransitionRecord } from './metrics.js';
export type { MembershipChange } from './membership.js';
export type { NodeHardware } from './hardware.js';
export { buildCluster } from './cluster-setup.js';
export { expandNodeKinds, checkMembership } from './cluster-spec.js';
export { round } from './stats.js';
export { MAX_NODES } from './kv/index.js';
