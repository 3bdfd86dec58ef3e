import { InputError } from '../common/errors.js';

/**
 * How a policy's scheduling time is charged: `measured` (its CPU time in the
 * sandbox, the default), `zero`, or `fixed:MS` per call (deterministic runs).
 */
export type SchedCost = { kind: 'measured' } | { kind: 'zero' } | { kind: 'fixed'; ms: number };

export function parseSchedCost(spec: string): SchedCost {
  if (spec === 'measured') return { kind: 'measured' };
  if (spec === 'zero') return { kind: 'zero' };
  const m = /^fixed:(\d+(?:\.\d+)?)$/.exec(spec);
  if (m) return { kind: 'fixed', ms: Number(m[1]) };
  throw new InputError(`"${spec}" is not measured, zero or fixed:MS`, { field: '--sched-cost' });
}

/** Seconds charged for one call that used `cpuMs` of CPU. */
export function chargedSeconds(cost: SchedCost, cpuMs: number): number {
  switch (cost.kind) {
    case 'measured':
      return cpuMs / 1000;
    case 'zero':
      return 0;
    case 'fixed':
      return cost.ms / 1000;
  }
}

export function formatSchedCost(cost: SchedCost): string {
  return cost.kind === 'fixed' ? `fixed:${cost.ms}` : cost.kind;
}
