import { z } from 'zod';
import type { Rng } from '../common/rng.js';
import { distSchema, type Dist } from './dist.js';

/**
 * Synchronised sub-agent bursts (the `bursty-cc` scenario): many agents fan
 * out at the same moment every few minutes, as when an orchestrator or a
 * shared event (a CI run finishing, a plan step) makes every session start
 * its sub-agents together. Off unless a preset or a run asks for it; with it
 * off the harness draws exactly what it always drew.
 *
 * With bursts on, a root branch still decides after each call whether it
 * launches sub-agents, but the sub-agents' first calls are held until the
 * next burst instant (a multiple of `periodSeconds` since the start) and
 * then released within `jitterSeconds`. Every launch decided during one
 * period therefore lands at once. The parent waits for its sub-agents as
 * before. Traces carry the period as the request's `sync` field, so a replay
 * keeps the bursts aligned to its own clock (see trace-source.ts).
 */
export const burstSchema = z.strictObject({
  /** Seconds between burst instants. */
  periodSeconds: z.number().positive().finite(),
  /** Sub-agents' first calls are spread uniformly over this many seconds after the instant. */
  jitterSeconds: z.number().nonnegative().finite().default(0),
  /** Chance, after each root call, that it launches sub-agents (default: the kind's own). */
  probability: z.number().min(0).max(1).optional(),
  /** Sub-agents per launch (default: the kind's own). */
  count: distSchema.optional(),
});
export type BurstSpec = z.output<typeof burstSchema>;
export type BurstSpecInput = z.input<typeof burstSchema>;

/** The first burst instant at or after `t`. */
export function nextBurstAt(t: number, periodSeconds: number): number {
  return Math.ceil(t / periodSeconds - 1e-9) * periodSeconds;
}

/** Launch chance and fan-out of a kind's sub-agents, with the burst overrides applied. */
export function subagentDraw(kind: { probability: number; count: Dist }, bursts: BurstSpec | undefined): { probability: number; count: Dist } {
  if (!bursts) return kind;
  return { probability: bursts.probability ?? kind.probability, count: bursts.count ?? kind.count };
}

/** When a held sub-agent's first call comes: the next instant plus its jitter (drawn from the sub-agent's own stream). */
export function burstRelease(bursts: BurstSpec, now: number, rng: Rng): { at: number; wait: number } {
  const wait = bursts.jitterSeconds > 0 ? rng.uniform(0, bursts.jitterSeconds) : 0;
  return { at: nextBurstAt(now, bursts.periodSeconds) + wait, wait };
}
