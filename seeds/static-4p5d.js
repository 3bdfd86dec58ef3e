/*
 * static-4p5d: a fixed split, the baseline every serving system ships with.
 *
 * What it does: keeps PREFILL_NODES of the up nodes on prefill and the rest on
 * decode (4P5D on the default 9-node cluster). It never replans on load; it
 * replans only when the count of up prefill nodes is not the one wanted,
 * which happens after a membership change (a prefill node went down: a decode
 * node takes its place; a node came back: the count is restored) or when the
 * cluster is too small for the fixed count (then at least one P and one D).
 *
 * Signals: node states and roles only (ctx.nodes, ctx.limits). It reads no
 * workload statistic and no model.
 *
 * Trade-off: the cheapest possible planner (a count per call, no prediction)
 * and no reconfiguration churn: at most the nodes needed to restore the count
 * move, only when membership changes. It cannot follow the workload: when the
 * mix moves away from what 4P5D suits, throughput is lost for as long as it
 * lasts. Change PREFILL_NODES to get another static split.
 */

const PREFILL_NODES = 4;

function upCount(ctx) {
  let up = 0;
  for (let i = 0; i < ctx.nodes.length; i++) if (ctx.nodes[i].state !== 'down') up++;
  return up;
}

function headedPrefill(ctx) {
  const roles = ctx.nodes.map(function (n) { return n.targetRole || n.role; });
  return countRoles(roles, ctx.nodes).P;
}

// The prefill count wanted on the up nodes: PREFILL_NODES, within the limits
// and leaving at least one node of each phase.
function wantedPrefill(ctx) {
  const up = upCount(ctx);
  if (up < 2) return Math.min(up, headedPrefill(ctx));
  const minP = Math.max(1, ctx.limits.minPrefill);
  const minD = Math.max(1, ctx.limits.minDecode);
  const lo = up < minP + minD ? 1 : minP;
  const hi = up < minP + minD ? up - 1 : up - minD;
  return Math.min(hi, Math.max(lo, PREFILL_NODES));
}

function shouldReschedule(ctx) {
  return headedPrefill(ctx) !== wantedPrefill(ctx);
}

function schedule(ctx) {
  return { roles: splitToRoles(wantedPrefill(ctx), ctx.nodes) };
}
