/*
 * evolving-infra: the reference planner (ARCHITECTURE.md section 3, "Planner mechanics").
 *
 * What it does: takes the planning window as its ten 60 s slices and, for every
 * candidate split nP = 1 .. up-1, computes per slice the gain in predicted
 * throughput Theta (predictThroughput on that slice's mean request) over the
 * split in force. It switches only when a candidate's mean gain is more than
 * twice its standard error, picks the largest such gain, then holds 120 s
 * (measured from ctx.lastRescheduleAt and from the latest transition start).
 * A node going down or coming up is handled at once, hold or not: the same
 * test runs against the split as it stands on the new cluster (losing a node
 * of the bottleneck phase shows up as a consistent gain for moving one back),
 * and a split left with no prefill or no decode node is repaired first.
 *
 * Signals: per-slice mean request (t_uc, t_c, t_out, t_acc), decode and
 * prefill queues (sliceWorkload), the fitted model per node kind, ctx.lastRescheduleAt,
 * ctx.transitions, ctx.membership. Slices that measured nothing (warm-up) are
 * not counted as evidence.
 *
 * What it relies on: the stdlib's predictor must rate the splits it has not
 * tried. It sizes each split's decode batches from the requests waiting for
 * prefill as well as those in decode (a split with more prefill hands the
 * prefill backlog to decode); with decode measured at its starved batch
 * alone, a prefill-bound window made every move toward prefill look like a
 * loss, and on the shifting preset this planner stayed decode-heavy through
 * the prefill-heavy hours (4.62 req/s live, 6.8% under the best static
 * split; now 5.89, +18.9%: docs/planner-study.md).
 *
 * Trade-off: replans rarely and only on significant evidence (never chases
 * noise, but reacts to a shift only after a few slices show it: on shifting
 * the move from 2P7D to 8P1D takes 8 to 20 minutes, as older slices of the
 * window still argue for decode); spends a small, fixed amount of planning
 * compute (candidates x slices throughput
 * predictions, about 80 on 9 nodes), the same in shouldReschedule and
 * schedule; reconfigures only the nodes the new split needs (splitToRoles
 * moves the least loaded ones), possibly several at once.
 */

const WINDOW_SLICES = 10; // the 600 s window in 60 s slices
const HOLD_SECONDS = 120; // no gain-driven switch this soon after the last one
const Z = 2; // mean gain must exceed Z standard errors

function isUpNode(node) {
  return node.state !== 'down';
}

function headedRoles(ctx) {
  return ctx.nodes.map(function (n) { return n.targetRole || n.role; });
}

function upCount(ctx) {
  let up = 0;
  for (let i = 0; i < ctx.nodes.length; i++) if (isUpNode(ctx.nodes[i])) up++;
  return up;
}

function currentPrefill(ctx) {
  return countRoles(headedRoles(ctx), ctx.nodes).P;
}

// Range of prefill counts a plan may use: at least one P and one D (and the
// limits) when the up nodes allow it.
function bounds(ctx) {
  const up = upCount(ctx);
  if (up < 2) {
    const p = Math.min(up, currentPrefill(ctx));
    return { lo: p, hi: p };
  }
  const minP = Math.max(1, ctx.limits.minPrefill);
  const minD = Math.max(1, ctx.limits.minDecode);
  if (up < minP + minD) return { lo: 1, hi: up - 1 };
  return { lo: minP, hi: up - minD };
}

function clampPrefill(ctx, nP) {
  const b = bounds(ctx);
  return Math.min(b.hi, Math.max(b.lo, nP));
}

// Mean request of each measured slice of the last WINDOW_SLICES.
function measuredWorkloads(ctx) {
  const slices = ctx.window.slices;
  const out = [];
  for (let i = Math.max(0, slices.length - WINDOW_SLICES); i < slices.length; i++) {
    const s = slices[i];
    if (s.meanUncachedTokens === null && s.meanOutputTokens === null) continue;
    const w = sliceWorkload(ctx, i);
    if (w !== null) out.push(w);
  }
  return out;
}

function inHold(ctx) {
  let last = ctx.lastRescheduleAt;
  for (let i = 0; i < ctx.transitions.length; i++) {
    const t = ctx.transitions[i];
    if (t.end === undefined) return true; // a switch is still under way
    if (last === null || t.start > last) last = t.start;
  }
  return last !== null && ctx.now - last < HOLD_SECONDS;
}

// The decision: { roles, change }.
function decide(ctx) {
  const base = currentPrefill(ctx);
  const cur = clampPrefill(ctx, base);
  const currentRoles = splitToRoles(cur, ctx.nodes);
  const repair = cur !== base;
  const loads = measuredWorkloads(ctx);
  const b = bounds(ctx);
  if (loads.length === 0 || b.lo === b.hi) return { roles: currentRoles, change: repair };

  const baseTheta = loads.map(function (w) { return predictThroughput(ctx, currentRoles, w); });
  let best = null;
  let bestGain = 0;
  for (let p = b.lo; p <= b.hi; p++) {
    if (p === cur) continue;
    const roles = splitToRoles(p, ctx.nodes);
    const gains = [];
    for (let i = 0; i < loads.length; i++) gains.push(predictThroughput(ctx, roles, loads[i]) - baseTheta[i]);
    const g = mean(gains);
    if (!(g > 0) || !(g > Z * stdError(gains))) continue;
    if (g > bestGain) {
      bestGain = g;
      best = roles;
    }
  }
  if (best === null) return { roles: currentRoles, change: repair };
  return { roles: best, change: true };
}

function shouldReschedule(ctx) {
  if (clampPrefill(ctx, currentPrefill(ctx)) !== currentPrefill(ctx)) return true;
  if (ctx.membership.length === 0 && inHold(ctx)) return false;
  return decide(ctx).change;
}

function schedule(ctx) {
  if (ctx.membership.length === 0 && inHold(ctx)) {
    return { roles: splitToRoles(clampPrefill(ctx, currentPrefill(ctx)), ctx.nodes) };
  }
  return { roles: decide(ctx).roles };
}
