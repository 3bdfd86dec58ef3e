import { Rng } from '../../../src/common/rng.js';
import type { MutationInput } from '../../../src/evolve/mutators/index.js';

/** A small policy with one of everything the structural edits work on. Hand-written for these tests. */
export const TINY = `/*
 * tiny: a test policy.
 * Holds HOLD seconds after a reschedule, then replans when the queue grows.
 */

const HOLD = 120;

// the smallest prefill count whose share beats the queue ratio
function pick(ctx, n) {
  let best = 1;
  for (let p = 1; p < n; p++) {
    if (p / n > 0.35) {
      best = p;
      break;
    }
  }
  return best;
}

function shouldReschedule(ctx) {
  if (ctx.lastRescheduleAt !== null && ctx.now - ctx.lastRescheduleAt < HOLD) return false;
  return ctx.window.slices.length > 3;
}

function schedule(ctx) {
  const n = ctx.nodes.length;
  const nP = pick(ctx, n);
  return { roles: splitToRoles(nP, ctx.nodes) };
}
`;

/** Nothing a structural edit applies to: no literal worth moving, no comparison, only final returns. */
export const BARE = `// bare: keeps the plan.
function shouldReschedule(ctx) {
  return true;
}

function schedule(ctx) {
  return ctx.plan;
}
`;

export function input(code: string, seed: number, extra: Partial<MutationInput> = {}): MutationInput {
  return { parent: { id: 1, code, fitness: 100 }, children: [], inspirations: [], best: null, recentStrategies: [], rng: new Rng(seed), ...extra };
}
