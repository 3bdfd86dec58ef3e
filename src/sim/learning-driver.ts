import { SimulationInvariantError } from '../common/errors.js';
import type { SimEvent } from './events.js';
import type { IterationModelView, NodeHardware } from './hardware.js';
import type { ClusterLearning } from './learning/index.js';
import type { SimState } from './sim-state.js';
import { moveWaitingDecodes } from './transitions/decode.js';
import { moveQueuedPrefills } from './transitions/prefill.js';
import { afterCapacityChange } from './transitions/role-switch.js';

/**
 * The learning driver: the learning phase at the start of the warm-up, when
 * every node serves both phases so that the engine measures iterations of
 * each, and its end at convergence (or with the warm-up). The fit itself is
 * src/sim/learning's.
 */

/** The iteration-time model routing predicts with: the learned one of the node's kind, or the given one. */
export function engineFor(learning: ClusterLearning | null, hw: NodeHardware, id: number): IterationModelView {
  if (learning) return learning.engineOf(hw);
  if (!hw.engine) throw new SimulationInvariantError(`node ${id}: learning 'given' needs hw.engine`);
  return hw.engine;
}

/** Start of the run: collocate (unless turned off or there is no warm-up) and schedule the first fitting window. */
export function beginLearning(s: SimState, learning: ClusterLearning, out: SimEvent[]): void {
  const { opts } = s;
  if ((opts.learningOptions?.collocate ?? true) && opts.warmupSeconds > 0) {
    s.collocating = true;
    for (const n of s.nodes) n.bothPhases = true;
    // The learning phase ends at convergence, and at the latest with the warm-up.
    out.push({ type: 'learn', at: opts.warmupSeconds, deadline: true });
  }
  out.push({ type: 'learn', at: learning.learner.windowSeconds, deadline: false });
}

/** A fitting window ended (refit, maybe converge), or the warm-up did (the learning phase ends whatever the fit). */
export function onLearn(s: SimState, ev: Extract<SimEvent, { type: 'learn' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const learner = s.learning!.learner;
  if (!ev.deadline && !learner.allConverged) {
    learner.closeWindow(now);
    if (!learner.allConverged) out.push({ type: 'learn', at: now + learner.windowSeconds, deadline: false });
  }
  if (s.collocating && (ev.deadline || learner.allConverged)) endCollocation(s, now, out);
  return out;
}

/**
 * Back to the configured roles: each node stops taking work of the phase it
 * does not serve; what it holds of that phase and has not started moves to
 * nodes of that phase, what is running finishes in place (as in a
 * symmetric role switch, but nothing else changes: the KV stays). Plans a
 * policy made meanwhile take effect now.
 */
function endCollocation(s: SimState, now: number, out: SimEvent[]): void {
  s.collocating = false;
  s.collocatedUntil = now;
  for (const node of s.nodes) node.bothPhases = false;
  for (const node of s.nodes) {
    if (!node.up) continue;
    if (node.role === 'P') moveWaitingDecodes(s, node, now, out);
    else moveQueuedPrefills(s, node, now, out);
  }
  afterCapacityChange(s, now, out);
}

/**
 * Whether the engine model can no longer change in this run, so a run kept
 * only for its model may stop. A phase's model changes only when its fit
 * converges, and then never again; a fit needs samples. So it is settled when
 * every phase converged, or when the open ones never got a sample and no node
 * of their kind can run that phase again: roles move only through a policy's
 * plans, membership changes and the learning phase, so none of these may be
 * left to come, and no switch may be in flight.
 */
export function modelSettled(s: SimState): boolean {
  if (!s.learning) return true;
  const open = s.learning.learner.openPhases();
  if (open.length === 0) return true;
  if (open.some((p) => p.sampled) || s.opts.policy || s.collocating) return false;
  if ((s.opts.membership ?? []).some((m) => m.at >= s.now)) return false;
  for (const n of s.nodes) if (n.status !== 'active' || n.role !== n.targetRole || n.role !== s.desiredRoles[n.id]) return false;
  return !open.some((p) => s.nodes.some((n) => n.hw.kind === p.kind && (p.phase === 'prefill' ? n.servesPrefill : n.servesDecode)));
}
