/**
 * The policy contract: what a policy is given (Ctx), what it returns (Plan),
 * how a plan is checked, and the stdlib policies and the host share.
 * Policy authors read CONTRACT.md and policy.d.ts in this folder.
 */
export {
  CTX_VERSION,
  CtxSchema,
  CtxNodeSchema,
  KindModelSchema,
  MembershipEventSchema,
  NodeStateSchema,
  PlanSchema,
  RoleSchema,
  SliceSchema,
  TransitionSchema,
  type Ctx,
  type CtxNode,
  type KindModel,
  type MembershipEvent,
  type NodeState,
  type Plan,
  type Role,
  type Slice,
  type Transition,
} from './schema.js';
export {
  CtxMechanicsSchema,
  DECODE_ROUTINGS,
  EVICTION_ORDERS,
  KNOB_ENUMS,
  PREFILL_ROUTINGS,
  type CtxMechanics,
} from './knobs.js';
export { isUp, validatePlan, type PlanCheck } from './validate-plan.js';
export { STDLIB_NAMES, STDLIB_SOURCE } from './stdlib-source.js';
export { stdlib, type PhaseCapacity, type Stdlib, type Workload } from './stdlib.js';
export { sampleCtx, SAMPLE_GB300_MODEL, type SampleCtxOptions } from './sample-ctx.js';
