/*
 * affinity-switch: steers prefill routing by load balance (contract v2).
 *
 * What it does: keeps the split (it replans roles only to restore at least
 * one prefill and one decode node after a membership change) and switches
 * the prefill router: `cache-affinity` while the prefill nodes' queue waits
 * are balanced (spread under BALANCED_SPREAD_S seconds, or the busiest under
 * BALANCED_RATIO times the least busy plus that spread), `predicted-ttft`
 * when they are not; back to cache-affinity only once the spread is under
 * half that (hysteresis), and at most one router change per HOLD_SECONDS.
 *
 * Signals: ctx.nodes[].prefill.queueWaitSeconds (v2), ctx.mechanics.routing
 * (the router in force), node states and roles, membership changes.
 *
 * Trade-off: cache-affinity keeps each branch's prefix on the node that
 * holds it (most reuse, especially with per-node caches) but lets hot nodes
 * queue within its load guard; predicted-TTFT evens the waits at the price
 * of fetching or recomputing prefixes. Switching on measured waits buys
 * reuse while it is free and balance when it is not; it never moves roles
 * for load, so it cannot fix a split that is wrong for the workload.
 */

const BALANCED_SPREAD_S = 2; // max - min prefill queue wait under this: balanced
const BALANCED_RATIO = 1.5; // or max under min x this (plus the spread)
const HOLD_SECONDS = 30; // least time between two router changes

let lastRouterChange = -Infinity;

function prefillWaits(ctx) {
  const waits = [];
  for (let i = 0; i < ctx.nodes.length; i++) {
    const n = ctx.nodes[i];
    if (n.state === 'active' && n.role === 'P' && n.prefill !== null) waits.push(n.prefill.queueWaitSeconds);
  }
  return waits;
}

// The router wanted now, given the one in force (hysteresis on the way back).
function wantedRouter(ctx) {
  const current = ctx.mechanics.routing.prefill;
  const waits = prefillWaits(ctx);
  if (waits.length < 2) return current;
  const lo = Math.min.apply(null, waits);
  const hi = Math.max.apply(null, waits);
  const spread = current === 'cache-affinity' ? BALANCED_SPREAD_S : BALANCED_SPREAD_S / 2;
  const balanced = hi - lo < spread || hi < lo * BALANCED_RATIO + spread / 2;
  return balanced ? 'cache-affinity' : 'predicted-ttft';
}

function headedPrefill(ctx) {
  return countRoles(ctx.nodes.map(function (n) { return n.targetRole || n.role; }), ctx.nodes);
}

function needsRepair(ctx) {
  const up = ctx.nodes.filter(function (n) { return n.state !== 'down'; }).length;
  const c = headedPrefill(ctx);
  return up >= 2 && (c.P < Math.max(1, ctx.limits.minPrefill) || c.D < Math.max(1, ctx.limits.minDecode));
}

function shouldReschedule(ctx) {
  if (ctx.membership.length > 0 && needsRepair(ctx)) return true;
  if (ctx.now - lastRouterChange < HOLD_SECONDS) return false;
  return wantedRouter(ctx) !== ctx.mechanics.routing.prefill;
}

function schedule(ctx) {
  let roles = ctx.nodes.map(function (n) { return n.targetRole || n.role; });
  if (needsRepair(ctx)) {
    const up = ctx.nodes.filter(function (n) { return n.state !== 'down'; }).length;
    const p = Math.min(up - Math.max(1, ctx.limits.minDecode), Math.max(Math.max(1, ctx.limits.minPrefill), headedPrefill(ctx).P));
    roles = splitToRoles(p, ctx.nodes);
  }
  const router = wantedRouter(ctx);
  if (router !== ctx.mechanics.routing.prefill) lastRouterChange = ctx.now;
  return { roles: roles, routing: { prefill: router } };
}
