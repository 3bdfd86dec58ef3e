import type { Snapshot } from '../evaluate/index.js';
import { CycleFailure } from './failure.js';

/**
 * What the cycle row says about its snapshot: enough to tell snapshots
 * apart and to rebuild the context of a decision, not the trace itself.
 */
export function describeSnapshot(snapshot: Snapshot): Record<string, unknown> {
  const prefill = snapshot.roles.filter((r) => r === 'P').length;
  return {
    label: snapshot.label,
    warmupSeconds: snapshot.warmupSeconds,
    windowSeconds: snapshot.windowSeconds,
    seed: snapshot.seed,
    nodes: snapshot.roles.length,
    split: `${prefill}P${snapshot.roles.length - prefill}D`,
    nodeKinds: [...new Set(snapshot.nodeKinds)],
    traceEvents: snapshot.trace.events.length,
    membershipChanges: snapshot.membership.length,
  };
}

/** A snapshot the evaluator can replay, at least in shape; anything else fails the cycle before a worker starts. */
export function checkSnapshot(value: unknown): Snapshot {
  const s = value as Partial<Snapshot> | null | undefined;
  const problem =
    s === null || typeof s !== 'object'
      ? 'is not an object'
      : !s.trace || !Array.isArray(s.trace.events)
        ? 'has no trace'
        : s.trace.events.length === 0
          ? 'has an empty trace (nothing recorded yet)'
          : !Array.isArray(s.roles) || s.roles.length < 2
            ? 'has fewer than two nodes'
            : !Array.isArray(s.nodeKinds) || s.nodeKinds.length !== s.roles.length
              ? 'has node kinds that do not match its nodes'
              : typeof s.warmupSeconds !== 'number' || typeof s.windowSeconds !== 'number' || !(s.windowSeconds > 0)
                ? 'has no scored window'
                : !Array.isArray(s.membership)
                  ? 'has no membership timeline'
                  : undefined;
  if (problem) throw new CycleFailure('snapshot', `the snapshot ${problem}`, false);
  return s as Snapshot;
}
