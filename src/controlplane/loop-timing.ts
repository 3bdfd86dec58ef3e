import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlaneConfig } from './config.js';
import type { CycleOutcome, SimClock } from './types.js';

/** The background loop's pauses and the default clock (wall time: the only place the control plane reads it). */

/**
 * The pause before the next cycle: intervalSeconds after a cycle that ran;
 * after a failure, backoffSeconds, doubled for each consecutive retryable
 * (infrastructure) failure up to maxBackoffSeconds.
 */
export function nextDelayMs(outcome: Pick<CycleOutcome, 'status' | 'failure'>, consecutiveFailures: number, config: Pick<ControlPlaneConfig, 'intervalSeconds' | 'backoffSeconds' | 'maxBackoffSeconds'>): number {
  if (outcome.status !== 'failed') return config.intervalSeconds * 1000;
  const base = Math.max(config.intervalSeconds, config.backoffSeconds);
  if (!outcome.failure?.retryable) return base * 1000;
  const doubled = config.backoffSeconds * 2 ** Math.max(0, Math.min(30, consecutiveFailures - 1));
  return Math.min(Math.max(config.maxBackoffSeconds, config.backoffSeconds), doubled) * 1000;
}

export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    // aborted: stop() was called
  }
}

/** Default clock when serve gives none: wall seconds since open, after the time already reached. */
export function wallClock(offset: number): SimClock {
  const t0 = performance.now();
  return () => offset + (performance.now() - t0) / 1000;
}
