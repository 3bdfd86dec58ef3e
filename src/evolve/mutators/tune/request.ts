import { z } from 'zod';

/**
 * What a tuning run is given (sent to a pool worker, so plain data): the
 * candidate, where its snapshots are and how they are normalised, and its
 * budget. Same request, same answer: every choice draws from `seed`.
 */
export interface TuneRequest {
  /**
   * What the worker searches: the numeric literals (tune's (1+1)-ES, the
   * default when absent, so a tune job's content address is what it was) or
   * the knobs insert-knob can add (knob-search).
   */
  search?: 'knobs';
  code: string;
  seed: number;
  /** Replays the run may make (each candidate point costs one per snapshot). */
  replays: number;
  /** The worker's snapshot indices the objective replays (the training snapshots). */
  snapshots: number[];
  /**
   * Per snapshot, the reference policy's T_total there (the objective is the
   * mean of T_total / reference), or null to use T_total as is (one snapshot).
   */
  references: (number | null)[];
  /** The candidate's own objective when already known (its fitness), saving a replay. */
  baseline: number | null;
  /** Most literals tuned together (a random subset of the sites when there are more); knob-search ignores it. */
  maxLiterals: number;
  /**
   * The points of this parent that earlier searches of the same kind in the
   * run measured (src/evolve/mutators/tune/memo.ts), so that none is
   * replayed again; absent when there are none (a request reads as before).
   */
  known?: KnownPoint[];
}

/**
 * A point of one parent measured before: `pair` names it (knob-search: the
 * pair's label, `group.key=value`; tune: the child's code hash), with its
 * objective (null: the point failed) and whether its child was proposed.
 */
export const KnownPointSchema = z.object({ pair: z.string(), objective: z.number().nullable(), proposed: z.boolean() }).strict();
export type KnownPoint = z.infer<typeof KnownPointSchema>;
