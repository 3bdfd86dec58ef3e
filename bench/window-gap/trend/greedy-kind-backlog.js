/*
 * greedy-kind-backlog: greedy-kind (greedy with splitByKind placement)
 * pricing splits with predictWithHeadroom, the spare prefill nodes in
 * proportion to the window's prefill backlog (min(MAX_SPARE,
 * prefillQueue / QUEUE_PER_SPARE)): a queue the steady-state rate does not
 * see. An experiment of docs/gap-study.md, not a seed; the figures there
 * vary QUEUE_PER_SPARE.
 */
/* Based on seeds/greedy.js:
 * greedy: always jump to the split that looks best right now.
 *
 * What it does: at every monitoring step it asks to replan, and schedule
 * picks the split nP = 1 .. up-1 with the highest predicted throughput Theta
 * (predictThroughput) for the mean request of the latest slice that measured
 * anything. Ties keep the split in force. No hold, no significance test, no
 * transition cost: if the latest slice favours another split, it moves there
 * at once, however many nodes that takes.
 *
 * Signals: the latest measured slice only (t_uc, t_c, t_out, t_acc, decode
 * queue via sliceWorkload) and the fitted model. With nothing measured yet it
 * keeps the split in force (repaired to at least one P and one D).
 *
 * Trade-off: cheap per call (one prediction per candidate split, about 8 on 9
 * nodes) but the most frequent replanning possible (every call) and heavy
 * churn: one noisy 60 s slice can move several nodes, and each move costs
 * capacity while the node drains. Fast to follow a real shift; pays for every
 * false one.
 */

const QUEUE_PER_SPARE = 50;
const MAX_SPARE = 2;

function upCount(ctx) {
  let up = 0;
  for (let i = 0; i < ctx.nodes.length; i++) if (ctx.nodes[i].state !== 'down') up++;
  return up;
}

function headedPrefill(ctx) {
  const roles = ctx.nodes.map(function (n) { return n.targetRole || n.role; });
  return countRoles(roles, ctx.nodes).P;
}

function bounds(ctx) {
  const up = upCount(ctx);
  if (up < 2) {
    const p = Math.min(up, headedPrefill(ctx));
    return { lo: p, hi: p };
  }
  const minP = Math.max(1, ctx.limits.minPrefill);
  const minD = Math.max(1, ctx.limits.minDecode);
  if (up < minP + minD) return { lo: 1, hi: up - 1 };
  return { lo: minP, hi: up - minD };
}

function latestWorkload(ctx) {
  const slices = ctx.window.slices;
  for (let i = slices.length - 1; i >= 0; i--) {
    if (slices[i].meanUncachedTokens !== null || slices[i].meanOutputTokens !== null) return sliceWorkload(ctx, i);
  }
  return null;
}

// Spare prefill nodes in proportion to the prefill backlog: a queue the steady-state rate does not see.
function spareFor(w) {
  return Math.min(MAX_SPARE, (w.prefillQueue || 0) / QUEUE_PER_SPARE);
}

function shouldReschedule(ctx) {
  return true;
}

function schedule(ctx) {
  const b = bounds(ctx);
  const cur = Math.min(b.hi, Math.max(b.lo, headedPrefill(ctx)));
  const w = latestWorkload(ctx);
  let bestP = cur;
  if (w !== null) {
    let bestTheta = predictWithHeadroom(ctx, splitByKind(cur, ctx.nodes, ctx), w, spareFor(w));
    for (let p = b.lo; p <= b.hi; p++) {
      const theta = predictWithHeadroom(ctx, splitByKind(p, ctx.nodes, ctx), w, spareFor(w));
      if (theta > bestTheta) {
        bestTheta = theta;
        bestP = p;
      }
    }
  }
  return { roles: splitByKind(bestP, ctx.nodes, ctx) };
}
