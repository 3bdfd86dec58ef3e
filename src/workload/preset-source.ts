import { UsageError } from '../common/errors.js';
import { Rng } from '../common/rng.js';
import { BlockIdPool } from './blocks.js';
import type { BurstSpec } from './bursts.js';
import { Harness, type HarnessObserver } from './harness.js';
import { makeKindPicker } from './kind-picker.js';
import type { LoopSpec, WorkloadPreset } from './preset-schema.js';
import { withOutputCv } from './output-spread.js';
import { SharedPrefixes } from './shared-prefixes.js';
import type { WorkloadEvent, WorkloadSource } from './types.js';

export interface PresetSourceOptions {
  seed: number;
  /** Closed loop with this many agents (overrides the preset's loop). */
  agents?: number;
  /** Open loop: new agents per second, Poisson (overrides the preset's loop). */
  arrivalRate?: number;
  /** Sees every harness decision; used to record traces. */
  observer?: HarnessObserver;
  /** Synchronised sub-agent bursts (overrides the preset's; null = off). Default: the preset's, usually off. */
  bursts?: BurstSpec | null;
  /**
   * Spread of per-call output lengths: the coefficient of variation of every
   * kind's `outputTokens` log-normal (mean unchanged; compaction summaries not
   * affected). Default: each preset's own (cc and putnam: 2.0, measured on
   * coding-agent traces, see output-spread.ts).
   */
  outputCv?: number;
}

/**
 * A preset's harness model as a WorkloadSource. Closed loop: a fixed number
 * of agents, each replaced by a new one when it ends. Open loop: agents arrive
 * as a Poisson process, one `wake` at a time so that the simulator's queue
 * holds only the next arrival.
 */
export function createPresetSource(preset: WorkloadPreset, options: PresetSourceOptions): WorkloadSource {
  const loop = loopFor(preset.loop, options);
  const seed = options.seed;
  const pickKind = makeKindPicker(preset, seed);
  const arrivals = Rng.derive(seed, 'arrivals');
  let wakeToken = 0;

  const startAgent = (at: number, out: WorkloadEvent[], replaces?: number): void => {
    harness.startAgent(pickKind(harness.upcomingAgent, at), at, out, replaces);
  };
  const onAgentDone = (agent: number, now: number, out: WorkloadEvent[]): void => {
    if (loop.mode === 'closed') startAgent(now, out, agent);
  };
  // One id pool for shared prefixes and branches: block ids are unique across both.
  const pool = new BlockIdPool();
  const bursts = options.bursts === undefined ? preset.bursts : (options.bursts ?? undefined);
  const kinds = withOutputCv(preset.kinds, options.outputCv);
  const harness = new Harness(seed, kinds, pool, new SharedPrefixes(seed, pool), onAgentDone, options.observer, bursts);

  return {
    name: preset.name,
    model: preset.model,
    start() {
      const out: WorkloadEvent[] = [];
      if (loop.mode === 'closed') {
        const ramp = Rng.derive(seed, 'ramp');
        const times = Array.from({ length: loop.agents }, () => (loop.rampSeconds > 0 ? ramp.uniform(0, loop.rampSeconds) : 0));
        // Start in time order so agent numbers follow start times.
        times.sort((a, b) => a - b);
        for (const t of times) startAgent(t, out);
      } else {
        out.push({ kind: 'wake', at: arrivals.exponential(1 / loop.agentsPerSecond), token: ++wakeToken });
      }
      return out;
    },
    onComplete(requestId, now) {
      const out: WorkloadEvent[] = [];
      harness.onComplete(requestId, now, out);
      return out;
    },
    takeRetired: () => harness.takeRetired(),
    onWake(token, now) {
      const out: WorkloadEvent[] = [];
      if (loop.mode !== 'open' || token !== wakeToken) return out;
      startAgent(now, out);
      out.push({ kind: 'wake', at: now + arrivals.exponential(1 / loop.agentsPerSecond), token: ++wakeToken });
      return out;
    },
  };
}

function loopFor(loop: LoopSpec, options: PresetSourceOptions): LoopSpec {
  const { agents, arrivalRate } = options;
  if (agents !== undefined && arrivalRate !== undefined) throw new UsageError('give either a number of agents (closed loop) or an arrival rate (open loop), not both');
  if (agents !== undefined) {
    if (!Number.isSafeInteger(agents) || agents < 1) throw new UsageError(`agents must be a whole number >= 1, got ${agents}`);
    return { mode: 'closed', agents, rampSeconds: loop.mode === 'closed' ? loop.rampSeconds : 0 };
  }
  if (arrivalRate !== undefined) {
    if (!(arrivalRate > 0) || !Number.isFinite(arrivalRate)) throw new UsageError(`arrival rate must be a number > 0, got ${arrivalRate}`);
    return { mode: 'open', agentsPerSecond: arrivalRate };
  }
  return loop;
}
