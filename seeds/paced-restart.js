/*
 * paced-restart: the reference planner's switching rule, paced for
 * expensive reconfiguration (contract v2).
 *
 * What it does: scores every split against the current one on each measured
 * slice of the window (predicted throughput, as evolving-infra) and moves to
 * the largest mean gain that exceeds Z standard errors. Under restart
 * mechanics (ctx.mechanics.transition === 'restart', a switch takes the node
 * out for minutes and drops its KV) it also asks the gain to exceed
 * RESTART_MIN_GAIN of the current throughput, moves at most MAX_STEP nodes
 * per decision, waits until no node is switching or restarting, and sets
 * transitions.maxConcurrent to 1, so that the nodes of one decision restart
 * one after another and the cluster never loses more than one node of
 * capacity at once. With symmetric switches it lets every node switch at
 * once (maxConcurrent = the node count). Membership changes replan at once.
 *
 * Signals: ctx.window.slices (per-slice workload), ctx.model, ctx.mechanics
 * (transition kind, pacing in force), ctx.transitions, node states.
 *
 * Trade-off: under restarts it reaches a far split slowly (one node per
 * restart time) but never takes several nodes out together, which is what
 * makes restart-based replanning lose more than it gains; with symmetric
 * switches it behaves like evolving-infra without its fixed hold.
 */

const Z = 2; // mean gain must exceed Z standard errors
const RESTART_MIN_GAIN = 0.08; // under restarts: and 8% of the current throughput
const MAX_STEP = 2; // under restarts: nodes moved per decision
const HOLD_SECONDS = 60; // least time between two gain-driven decisions

function isRestart(ctx) {
  return ctx.mechanics.transition === 'restart';
}

function busy(ctx) {
  for (let i = 0; i < ctx.nodes.length; i++) {
    const s = ctx.nodes[i].state;
    if (s === 'switching' || s === 'restarting') return true;
  }
  return false;
}

function bounds(ctx) {
  const up = ctx.nodes.filter(function (n) { return n.state !== 'down'; }).length;
  if (up < 2) return null;
  const lo = Math.max(1, ctx.limits.minPrefill);
  const hi = up - Math.max(1, ctx.limits.minDecode);
  return lo <= hi ? { lo: lo, hi: hi } : { lo: 1, hi: up - 1 };
}

function headedP(ctx) {
  return countRoles(ctx.nodes.map(function (n) { return n.targetRole || n.role; }), ctx.nodes).P;
}

function loads(ctx) {
  const out = [];
  for (let i = 0; i < ctx.window.slices.length; i++) {
    const s = ctx.window.slices[i];
    if (s.meanUncachedTokens === null && s.meanOutputTokens === null) continue;
    const w = sliceWorkload(ctx, i);
    if (w !== null) out.push(w);
  }
  return out;
}

// The prefill count to move to (the current one when nothing passes).
function target(ctx) {
  const b = bounds(ctx);
  const cur = headedP(ctx);
  if (b === null) return cur;
  const fixed = Math.min(b.hi, Math.max(b.lo, cur));
  if (fixed !== cur) return fixed;
  const ws = loads(ctx);
  if (ws.length === 0) return cur;
  const curRoles = splitToRoles(cur, ctx.nodes);
  const base = ws.map(function (w) { return predictThroughput(ctx, curRoles, w); });
  const baseMean = mean(base);
  const restart = isRestart(ctx);
  let best = cur;
  let bestGain = 0;
  for (let p = b.lo; p <= b.hi; p++) {
    if (p === cur || (restart && Math.abs(p - cur) > MAX_STEP)) continue;
    const roles = splitToRoles(p, ctx.nodes);
    const gains = ws.map(function (w, i) { return predictThroughput(ctx, roles, w) - base[i]; });
    const g = mean(gains);
    if (!(g > 0) || !(g > Z * stdError(gains))) continue;
    if (restart && !(g > RESTART_MIN_GAIN * baseMean)) continue;
    if (g > bestGain) {
      bestGain = g;
      best = p;
    }
  }
  return best;
}

function wantedPacing(ctx) {
  return isRestart(ctx) ? 1 : ctx.nodes.length;
}

function shouldReschedule(ctx) {
  if (ctx.membership.length > 0) return true;
  if (ctx.mechanics.transitions.maxConcurrent !== wantedPacing(ctx)) return true;
  if (busy(ctx)) return false;
  if (ctx.lastRescheduleAt !== null && ctx.now - ctx.lastRescheduleAt < HOLD_SECONDS) return false;
  return target(ctx) !== headedP(ctx);
}

function schedule(ctx) {
  const p = busy(ctx) && ctx.membership.length === 0 ? headedP(ctx) : target(ctx);
  return { roles: splitToRoles(p, ctx.nodes), transitions: { maxConcurrent: wantedPacing(ctx) } };
}
