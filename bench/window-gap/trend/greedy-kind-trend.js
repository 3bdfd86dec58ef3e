/*
 * greedy-kind-trend: greedy-kind (greedy with splitByKind placement) pricing
 * the splits for the mean request projected TREND_HORIZON_S ahead, along the
 * least-squares line of the last TREND_SLICES measured slices (uncached,
 * cached and output tokens; each clamped to half the lowest and twice the
 * highest value seen). SPARE > 0 prices with predictWithHeadroom instead of
 * predictThroughput. An experiment of docs/gap-study.md (does moving ahead of
 * hetero's ramp pay?), not a seed; the figures there vary the three constants.
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

const TREND_SLICES = 5;
const TREND_HORIZON_S = 120;
const SPARE = 0;

// The latest measured slices' mean request, each field projected along its least-squares line to TREND_HORIZON_S after the last slice's middle.
function projectedWorkload(ctx) {
  const slices = ctx.window.slices;
  const idx = [];
  for (let i = slices.length - 1; i >= 0 && idx.length < TREND_SLICES; i--) {
    if (slices[i].meanUncachedTokens !== null && slices[i].meanOutputTokens !== null) idx.push(i);
  }
  if (idx.length === 0) return latestWorkload(ctx);
  const last = sliceWorkload(ctx, idx[0]);
  if (last === null || idx.length < 3) return last;
  const fields = ['uncached', 'cached', 'output'];
  const ws = idx.map(function (i) { return sliceWorkload(ctx, i); });
  const ts = idx.map(function (i) { return (slices[i].start + slices[i].end) / 2; });
  const tAt = ts[0] + TREND_HORIZON_S;
  let mt = 0;
  for (let k = 0; k < ts.length; k++) mt += ts[k] / ts.length;
  let stt = 0;
  for (let k = 0; k < ts.length; k++) stt += (ts[k] - mt) * (ts[k] - mt);
  const out = Object.assign({}, last);
  for (let f = 0; f < fields.length; f++) {
    const name = fields[f];
    let mv = 0, lo = Infinity, hi = -Infinity;
    for (let k = 0; k < ws.length; k++) { mv += ws[k][name] / ws.length; lo = Math.min(lo, ws[k][name]); hi = Math.max(hi, ws[k][name]); }
    let stv = 0;
    for (let k = 0; k < ws.length; k++) stv += (ts[k] - mt) * (ws[k][name] - mv);
    const slope = stt > 0 ? stv / stt : 0;
    const v = mv + slope * (tAt - mt);
    out[name] = Math.max(lo / 2, Math.min(2 * hi, Math.max(0, v)));
  }
  return out;
}

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

function shouldReschedule(ctx) {
  return true;
}

function schedule(ctx) {
  const b = bounds(ctx);
  const cur = Math.min(b.hi, Math.max(b.lo, headedPrefill(ctx)));
  const w = projectedWorkload(ctx);
  let bestP = cur;
  if (w !== null) {
    let bestTheta = (SPARE > 0 ? predictWithHeadroom(ctx, splitByKind(cur, ctx.nodes, ctx), w, SPARE) : predictThroughput(ctx, splitByKind(cur, ctx.nodes, ctx), w));
    for (let p = b.lo; p <= b.hi; p++) {
      const theta = (SPARE > 0 ? predictWithHeadroom(ctx, splitByKind(p, ctx.nodes, ctx), w, SPARE) : predictThroughput(ctx, splitByKind(p, ctx.nodes, ctx), w));
      if (theta > bestTheta) {
        bestTheta = theta;
        bestP = p;
      }
    }
  }
  return { roles: splitByKind(bestP, ctx.nodes, ctx) };
}
