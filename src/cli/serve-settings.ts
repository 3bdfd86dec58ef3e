import { z } from 'zod';
import { membershipChangeSchema } from '../scenario/index.js';
import { burstSchema } from '../workload/index.js';
import { MAX_NODES } from '../sim/index.js';

/**
 * What `serve` needs besides the control plane's own settings: the served
 * cluster and workload, pacing, the starting policy. Saved with the run so
 * that `serve --resume` serves the same thing.
 */
export const ServeSettingsSchema = z.strictObject({
  workload: z.string().min(1),
  agents: z.number().int().positive().optional(),
  /** Open loop (a scenario's): new agents per second instead of a closed loop. */
  arrivalRate: z.number().positive().optional(),
  /** A scenario's synchronised sub-agent bursts. */
  bursts: burstSchema.optional(),
  /** A scenario's membership timeline (seconds from the start of serving). */
  membership: z.array(membershipChangeSchema).default([]),
  /** The scenario served, when `--scenario` was given (name or absolute path, and its content hash). */
  scenario: z.strictObject({ ref: z.string().min(1), contentHash: z.string().min(1) }).optional(),
  nodes: z.number().int().min(2).max(MAX_NODES).default(9),
  nodeKinds: z.string().min(1).default('gb300'),
  split: z.string().min(1).default('4P5D'),
  mechanics: z.string().min(1).default('evolving-infra'),
  seed: z.number().int().min(0).default(1),
  /** Simulated seconds per real second; 0 = as fast as the machine goes. */
  speed: z.number().min(0).default(60),
  durationMinutes: z.number().positive().default(60),
  /** Minutes per reported segment of the run (the shifting preset's phases are 60). */
  segmentMinutes: z.number().positive().default(60),
  /** The starting policy: its file name and code. */
  policyName: z.string().min(1),
  policyCode: z.string().min(1),
  frozen: z.boolean().default(false),
  ringMinutes: z.number().positive().default(30),
  rollbackAfter: z.number().int().min(1).default(3),
  cpuLimitMs: z.number().int().positive().default(100),
  memoryLimitMb: z.number().int().min(8).default(64),
});
export type ServeSettingsInput = z.input<typeof ServeSettingsSchema>;
export type ServeSettings = z.output<typeof ServeSettingsSchema>;

/** The run_state key the settings are saved under. */
export const SERVE_SETTINGS_KEY = 'serveSettings';
