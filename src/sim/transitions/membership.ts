import type { SimEvent } from '../events.js';
import type { SimNode } from '../node.js';
import type { RequestState } from '../request-state.js';
import { currentSplit, openTransition, type SimState } from '../sim-state.js';
import { wakeSlots } from './decode-slots.js';
import { reprefillPendingDecodes, routePrefill } from './prefill.js';
import { afterCapacityChange, reconcile } from './role-switch.js';

/** Node failure and return (elastic scenarios). */

export function onMembership(s: SimState, ev: Extract<SimEvent, { type: 'membership' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const node = s.nodes[ev.change.node]!;
  if (ev.change.event === 'down') nodeDown(s, node, ev, now, out);
  else nodeUp(s, node, ev, now, out);
  return out;
}

/** Everything on a failed node restarts from scratch elsewhere: its KV is gone. Its pending events are voided (generation, timer token). */
function nodeDown(s: SimState, node: SimNode, ev: Extract<SimEvent, { type: 'membership' }>, now: number, out: SimEvent[]): void {
  if (node.status === 'down') return;
  s.membershipLog.push(ev.change);
  const wasSwitching = node.status === 'switching' || node.status === 'restarting';
  node.status = 'down';
  node.generation++;
  node.decodeTimerToken++;
  node.decodeTimerAt = Infinity;
  if (wasSwitching) {
    const rec = openTransition(s, node.id);
    if (rec) rec.end = now;
  }
  const lost: RequestState[] = [...node.prefillRunning, ...node.prefillQueue, ...node.decodeRequests.values()];
  node.prefillRunning = [];
  node.prefillQueue.length = 0;
  node.queuedPredictedSeconds = 0;
  node.activeBlocks = 0;
  node.clearDecodeRequests();
  node.decode.clear();
  s.kv.clearNode(node.id);
  node.role = node.targetRole;
  keepBothPhases(s, now, out);
  for (const rs of lost) {
    rs.restarts++;
    routePrefill(s, rs, now, out);
  }
  reprefillPendingDecodes(s, node, now, out);
  wakeSlots(s, node);
  s.metrics.split(now, currentSplit(s));
}

function nodeUp(s: SimState, node: SimNode, ev: Extract<SimEvent, { type: 'membership' }>, now: number, out: SimEvent[]): void {
  if (node.status !== 'down') return;
  s.membershipLog.push(ev.change);
  node.status = 'active';
  node.role = node.targetRole = s.desiredRoles[node.id]!;
  afterCapacityChange(s, now, out);
}

/**
 * A failure must not leave a phase without any node: the data plane then
 * flips the least-loaded node of the other phase, whatever the policy says,
 * so that no request waits forever.
 */
function keepBothPhases(s: SimState, now: number, out: SimEvent[]): void {
  const donors: number[] = [];
  for (const phase of ['P', 'D'] as const) {
    const up = s.nodes.filter((n) => n.status !== 'down');
    if (up.length < 2 || up.some((n) => s.desiredRoles[n.id] === phase)) continue;
    const donor = up.reduce((a, b) => (load(b) < load(a) ? b : a));
    s.desiredRoles[donor.id] = phase;
    donors.push(donor.id);
  }
  // The donors switch even past transitions.maxConcurrent: a phase must not wait a restart for a free slot.
  reconcile(s, now, out, donors);
}

function load(n: SimNode): number {
  return n.prefillLoad + n.decodeLoad;
}
