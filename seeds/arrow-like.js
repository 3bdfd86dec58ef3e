/*
 * arrow-like: size prefill by the total prompt length, chase prefill queue
 * surges, and give decode a node back when its latency objective slips
 * (Arrow's instance flipping between the prefill and decode pools).
 *
 * What it does: takes the mean request of the last RECENT_SLICES measured
 * slices and counts its whole prompt as new work, t_uc + t_c uncached tokens
 * and nothing cached: it ignores KV reuse, as a planner that predicts prefill
 * time from the input length does. It then picks the split nP = 1 .. up-1
 * with the highest predicted throughput for that request. Two momentary
 * rules act on top of it, one node at a time, as Arrow flips instances on
 * the latency it sees now:
 * - prefill surge: when the prefill queue grows from one slice to the next
 *   (by more than GROWTH times, to more than SURGE_PER_NODE per prefill node)
 *   or the prefill nodes' queues are long now, one prefill node beyond both
 *   the computed and the current split;
 * - decode latency: otherwise, when the time per output token of the decode
 *   nodes' batches as they run now (the fitted model's T_D(B) / t_acc, B the
 *   running and waiting requests of each decode node) is above TPOT_SLO_MS,
 *   at least one node back to decode.
 * It replans when the target differs from the split in force, at most every
 * COOLDOWN_SECONDS and not while a switch is under way; a membership change
 * is acted on at once.
 *
 * Signals: t_uc + t_c and t_out / t_acc of the recent slices, the fitted model,
 * meanPrefillQueue of the last two slices, prefill nodes' queueLength, decode
 * nodes' running + queueLength.
 *
 * Trade-off: cheap (one prediction per candidate split), quick to react
 * (short cooldown, recent slices and the present only, no significance test,
 * no hysteresis) and willing to move many nodes at once to reach its target.
 * Because it treats cached prefix as work, it over-provisions prefill when
 * KV reuse is high (coding agents with long shared contexts) and starves
 * decode; the decode-latency rule then pulls a node back and the next plan
 * from the prompt-length model pushes it out again, while sub-agent bursts
 * fire the surge rule: it flaps (published Arrow on cc with 90 agents: 34
 * transitions in the hour, 6P3D to 8P1D, against 1-2 for the reference).
 */

const RECENT_SLICES = 3; // slices the target split is computed from
const COOLDOWN_SECONDS = 60;
const GROWTH = 1.5; // prefill queue growth, latest slice over the one before, that counts as a surge
const SURGE_PER_NODE = 2; // ... when the latest prefill queue is also above this per prefill node
const NODE_QUEUE_SURGE = 6; // or when prefill nodes hold this many waiting requests each, now
const TPOT_SLO_MS = 10; // decode latency objective: 100 tokens/s per stream

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

function measured(s) {
  return s.meanUncachedTokens !== null || s.meanOutputTokens !== null;
}

// The mean request of the recent slices with its whole prompt counted as uncached.
function promptBlindWorkload(ctx) {
  const recent = [];
  const slices = ctx.window.slices;
  for (let i = slices.length - 1; i >= 0 && recent.length < RECENT_SLICES; i--) {
    if (measured(slices[i])) recent.unshift(slices[i]);
  }
  if (recent.length === 0) return null;
  const w = meanWorkload({ window: { sliceSeconds: ctx.window.sliceSeconds, slices: recent } });
  if (w === null) return null;
  w.uncached = w.uncached + w.cached;
  w.cached = 0;
  return w;
}

function surge(ctx, nP) {
  const slices = ctx.window.slices;
  if (slices.length >= 2 && nP > 0) {
    const last = slices[slices.length - 1].meanPrefillQueue;
    const prev = slices[slices.length - 2].meanPrefillQueue;
    if (last > GROWTH * prev && last > SURGE_PER_NODE * nP) return true;
  }
  let waiting = 0;
  let nodes = 0;
  for (let i = 0; i < ctx.nodes.length; i++) {
    const n = ctx.nodes[i];
    if (n.state === 'active' && n.role === 'P') {
      waiting += n.queueLength;
      nodes++;
    }
  }
  return nodes > 0 && waiting / nodes > NODE_QUEUE_SURGE;
}

function modelOf(ctx, kind) {
  return Object.prototype.hasOwnProperty.call(ctx.model.byKind, kind) ? ctx.model.byKind[kind] : null;
}

// Mean time per output token (ms) of the decode nodes' batches as they stand now; 0 with no batch.
function decodeTpotMs(ctx) {
  const slices = ctx.window.slices;
  const last = slices.length > 0 ? slices[slices.length - 1] : null;
  let sum = 0;
  let nodes = 0;
  for (let i = 0; i < ctx.nodes.length; i++) {
    const n = ctx.nodes[i];
    const m = modelOf(ctx, n.kind);
    if (n.state !== 'active' || n.role !== 'D' || m === null) continue;
    const b = Math.min(m.maxDecodeBatch, n.running + n.queueLength);
    if (b <= 0) continue;
    const phi = 1 - Math.pow(1 - m.kFraction, m.tFwd * b);
    const iteration = m.decode.d0 + m.decode.d1 * phi + m.decode.d2 * b;
    const accepted = last !== null && last.meanAcceptedPerIter !== null && last.meanAcceptedPerIter > 0 ? last.meanAcceptedPerIter : m.tAcc;
    sum += (1000 * iteration) / accepted;
    nodes++;
  }
  return nodes > 0 ? sum / nodes : 0;
}

function target(ctx) {
  const b = bounds(ctx);
  const cur = Math.min(b.hi, Math.max(b.lo, headedPrefill(ctx)));
  let want = cur;
  const w = promptBlindWorkload(ctx);
  if (w !== null) {
    let bestTheta = -1;
    for (let p = b.lo; p <= b.hi; p++) {
      const theta = predictThroughput(ctx, splitToRoles(p, ctx.nodes), w);
      // Ties go to the split closest to the current one.
      if (theta > bestTheta || (theta === bestTheta && Math.abs(p - cur) < Math.abs(want - cur))) {
        bestTheta = theta;
        want = p;
      }
    }
  }
  if (surge(ctx, cur)) want = Math.max(want, cur + 1);
  else if (decodeTpotMs(ctx) > TPOT_SLO_MS) want = Math.min(want, cur - 1);
  return Math.min(b.hi, Math.max(b.lo, want));
}

function cooling(ctx) {
  for (let i = 0; i < ctx.transitions.length; i++) if (ctx.transitions[i].end === undefined) return true;
  return ctx.lastRescheduleAt !== null && ctx.now - ctx.lastRescheduleAt < COOLDOWN_SECONDS;
}

function shouldReschedule(ctx) {
  const cur = headedPrefill(ctx);
  const b = bounds(ctx);
  if (cur < b.lo || cur > b.hi) return true;
  if (ctx.membership.length === 0 && cooling(ctx)) return false;
  return target(ctx) !== cur;
}

function schedule(ctx) {
  const b = bounds(ctx);
  const cur = headedPrefill(ctx);
  const repair = cur < b.lo || cur > b.hi;
  if (!repair && ctx.membership.length === 0 && cooling(ctx)) return { roles: splitToRoles(cur, ctx.nodes) };
  return { roles: splitToRoles(target(ctx), ctx.nodes) };
}
