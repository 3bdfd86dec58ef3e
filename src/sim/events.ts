import type { Plan } from '../policy/schema.js';
import { EventQueue } from './event-queue.js';
import type { MembershipChange } from './membership.js';
import type { RequestState } from './request-state.js';
import type { Role } from './split.js';
import type { WorkloadEvent } from '../workload/types.js';

/**
 * The simulator's events. An event carries its time and payload only: its
 * rank comes from its type (EVENT_RANK), its sequence number from the queue.
 * Events of a node carry the node's generation (bumped when it fails) or its
 * decode-timer token (bumped when the timer is re-armed), so that stale ones
 * are ignored.
 */
/** A plan's fields besides the roles (contract v2). */
export type PlanKnobs = Omit<Plan, 'roles'>;

export type SimEvent =
  | { type: 'membership'; at: number; change: MembershipChange }
  | { type: 'decode'; at: number; node: number; token: number }
  | { type: 'prefill-done'; at: number; node: number; generation: number }
  | { type: 'fetch-done'; at: number; node: number; generation: number }
  | { type: 'transfer-done'; at: number; node: number; rs: RequestState }
  | { type: 'restart-done'; at: number; node: number; generation: number }
  | { type: 'workload'; at: number; event: WorkloadEvent }
  /** record: the plan's index in PolicyStats.plans; knobs: the plan's contract-v2 fields, if it set any. */
  | { type: 'plan'; at: number; roles: Role[]; record: number; knobs?: PlanKnobs }
  | { type: 'learn'; at: number; deadline: boolean }
  | { type: 'monitor'; at: number };

export type SimEventType = SimEvent['type'];

/**
 * Order of events due at the same instant (lower first); equal ranks pop in
 * push order. The order is part of the model: src/sim/README.md has the table
 * with the reason for each rank.
 */
export const EVENT_RANK: Readonly<Record<SimEventType, number>> = {
  // A node that fails or returns does so before anything else happens at that instant: no work lands on a dead node.
  membership: 0,
  // Decode steps first: requests finishing now complete, freeing batch slots, before prefills, transfers and arrivals of the instant add work.
  decode: 1,
  // Then prefill batches that end: the node is free and its prompts' KV admitted before fetches, arrivals and plans of the instant look at it.
  'prefill-done': 2,
  // Fetches that end: the node may start a batch with them, after a finishing batch freed it.
  'fetch-done': 3,
  // KV arriving at a decode node joins after the step of this instant.
  'transfer-done': 4,
  // A restarted node comes back once the work of this instant is placed.
  'restart-done': 5,
  // New requests see the cluster after all completions and hand-offs of the instant.
  workload: 6,
  // A plan applies to the cluster as the instant left it.
  plan: 7,
  // The learner closes its window over every iteration of the instant.
  learn: 8,
  // The monitor samples queues (and consults the policy) last: it sees the instant complete.
  monitor: 9,
};

/** The simulator's event queue: deterministic order (time, EVENT_RANK of the type, push order). */
export function createEventQueue(): EventQueue<SimEvent> {
  return new EventQueue<SimEvent>((ev) => EVENT_RANK[ev.type]);
}
