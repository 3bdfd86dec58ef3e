import type { SimEvent } from '../events.js';
import type { SimNode } from '../node.js';
import { currentSplit, openTransition, type SimState } from '../sim-state.js';
import type { Role } from '../split.js';
import { moveWaitingDecodes, routeDecode } from './decode.js';
import { moveQueuedPrefills, reprefillPendingDecodes, routePrefill, tryStartPrefill } from './prefill.js';

/**
 * The role-switch state machine of a node:
 *
 *   active --(plan changes its role)--> switching --(drained)--> active (symmetric)
 *                                                 \--(drained)--> restarting --(restart-done)--> active (restart)
 *
 * A switching node takes no new work; what it holds and has not started
 * moves to nodes of the same phase, what runs finishes in place.
 */

/**
 * Start a switch on every serving node whose role differs from the desired
 * one; with transitions.maxConcurrent set, only while fewer nodes than that
 * are switching or restarting, in node order (the plan's order): the others
 * start when one finishes (finishTransition reconciles again). `urgent`
 * nodes (a phase left without any node) start whatever the cap.
 */
export function reconcile(s: SimState, now: number, out: SimEvent[], urgent: readonly number[] = []): void {
  const cap = s.knobs.maxConcurrent;
  // Without a cap the loop below starts them anyway, in node order as always.
  for (const id of cap === null ? [] : urgent) {
    const node = s.nodes[id]!;
    if (!s.collocating && node.status === 'active' && node.role !== s.desiredRoles[id]) startSwitch(s, node, s.desiredRoles[id]!, now, out);
  }
  // Role changes wait for the end of the learning phase (every node serves both phases until then).
  for (const node of s.collocating ? [] : s.nodes) {
    // Counted afresh: a switch that drains at once finishes and reconciles within startSwitch.
    if (cap !== null && switchingCount(s) >= cap) break;
    if (node.status === 'active' && node.role !== s.desiredRoles[node.id]) startSwitch(s, node, s.desiredRoles[node.id]!, now, out);
  }
  s.metrics.split(now, currentSplit(s));
}

function switchingCount(s: SimState): number {
  let busy = 0;
  for (const n of s.nodes) if (n.status === 'switching' || n.status === 'restarting') busy++;
  return busy;
}

function startSwitch(s: SimState, node: SimNode, to: Role, now: number, out: SimEvent[]): void {
  node.status = 'switching';
  node.targetRole = to;
  s.policyStats.nodesSwitched++;
  s.metrics.transitions.push({ node: node.id, from: node.role, to, start: now, end: null, kind: s.opts.mechanics.transition });
  // Pending (queued) requests move to nodes of the same phase; running ones finish in place.
  if (node.role === 'P') moveQueuedPrefills(s, node, now, out);
  else moveWaitingDecodes(s, node, now, out);
  maybeFinishSwitch(s, node, now, out);
}

/** A switching node whose work has drained changes role now (symmetric) or restarts (restart). */
export function maybeFinishSwitch(s: SimState, node: SimNode, now: number, out: SimEvent[]): void {
  if (node.status !== 'switching') return;
  const restart = s.opts.mechanics.transition === 'restart';
  const prefillDrained = node.prefillRunning.length === 0;
  const decodeDrained = node.decode.size === 0 && node.inboundTransfers === 0;
  // A symmetric switch waits for the phase it leaves. A restart takes the
  // engine down and clears the node's KV, so it waits for both: right after
  // the learning phase a node may still run work of its other phase.
  const drained = restart ? prefillDrained && decodeDrained : node.role === 'P' ? prefillDrained : decodeDrained;
  if (!drained) return;
  if (restart) {
    node.status = 'restarting';
    s.kv.clearNode(node.id);
    // Prompts prefilled here and waiting for a decode node lose their KV with it.
    reprefillPendingDecodes(s, node, now, out);
    const seconds = node.hw.restartSeconds(s.rng.next());
    out.push({ type: 'restart-done', at: now + seconds, node: node.id, generation: node.generation });
    return;
  }
  if (node.role === 'D') s.kv.clearGpu(node.id); // D->P empties KV; P->D keeps it
  finishTransition(s, node, now, out);
}

export function onRestartDone(s: SimState, ev: Extract<SimEvent, { type: 'restart-done' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const node = s.nodes[ev.node]!;
  if (ev.generation === node.generation) finishTransition(s, node, now, out);
  return out;
}

function finishTransition(s: SimState, node: SimNode, now: number, out: SimEvent[]): void {
  node.role = node.targetRole;
  node.status = 'active';
  const rec = openTransition(s, node.id);
  if (rec) rec.end = now;
  afterCapacityChange(s, now, out);
}

/** A node became able to serve: drain the cluster-level queues, then re-check the plan. */
export function afterCapacityChange(s: SimState, now: number, out: SimEvent[]): void {
  if (s.pendingPrefill.length && s.nodes.some((n) => n.acceptsPrefill)) {
    for (const rs of s.pendingPrefill.splice(0)) routePrefill(s, rs, now, out);
  }
  if (s.pendingDecode.length && s.nodes.some((n) => n.acceptsDecode)) {
    for (const rs of s.pendingDecode.splice(0)) routeDecode(s, rs, s.nodes[rs.prefillNode]!, now, out);
  }
  reconcile(s, now, out);
  for (const n of s.nodes) tryStartPrefill(s, n, now, out);
}
