/*
 * lookahead: a thorough planner that prices transitions and plans a few slices ahead.
 *
 * What it does: for every candidate split nP = 1 .. up-1 it scores predicted
 * throughput Theta (predictThroughput) over each measured slice of the window
 * and over HORIZON future slices. Future slices are forecast from the window:
 * a damped linear trend of the mean request (t_uc, t_c, t_out, decode queue)
 * plus RESAMPLES residual-bootstrap draws, so a split that only wins on a lucky
 * draw is penalised (score = mean - RISK x spread). Moving from one split to
 * another costs the throughput lost while the moved nodes drain: for the
 * moved nodes, an estimated drain time (the longest of: mean duration of
 * recent transitions, a moved prefill node's running prefills, half the
 * decode of a moved decode node's running batch) times the gap between the
 * new split's Theta and Theta with the moved nodes serving nothing. A dynamic
 * program over the window stage and the HORIZON future stages, each one slice
 * long (moving at most MAX_STEP nodes per future slice), finds the best
 * sequence of splits; its first step is taken when it beats staying by more
 * than MARGIN. The decision is memoised per window and cluster state, so
 * planning runs once per new slice or cluster change; a membership change is
 * planned for at once.
 *
 * Signals: every measured slice's mean request and decode queue, the fitted
 * model per node kind, node queues and running requests (drain time),
 * ctx.transitions (observed drain times, switches under way), ctx.membership.
 *
 * Trade-off: the most planning compute per call of the seeds (about 1,700
 * throughput predictions: 1-2 ms of CPU once the isolate is warm, a few tens
 * of ms on its first call) in exchange for well-founded decisions: it
 * replans when the forecast gain pays for the drain, not on a fixed hold, and
 * it prefers small moves because each moved node is priced. Its forecasts extrapolate the window: a sudden shift is
 * followed only as fast as the trend and the residuals let it show.
 */

const WINDOW_SLICES = 10;
const HORIZON = 3; // future slices simulated
const RESAMPLES = 64; // bootstrap draws per future slice
const RISK = 0.5; // weight of the spread across draws (or slices) in a stage's score
const TREND_DAMPING = 0.5; // share of the fitted trend carried into the future
const MARGIN = 0.02; // relative gain over staying needed to move
const MAX_STEP = 2; // most nodes moved per future slice in the simulation (the first move is free of this)
const DEFAULT_DRAIN_SECONDS = 10;
const FIELDS = ['uncached', 'cached', 'output', 'decodeQueue'];

let memo = null; // { key, roles, change }

function upCount(ctx) {
  let up = 0;
  for (let i = 0; i < ctx.nodes.length; i++) if (ctx.nodes[i].state !== 'down') up++;
  return up;
}

function headedRoles(ctx) {
  return ctx.nodes.map(function (n) { return n.targetRole || n.role; });
}

function headedPrefill(ctx) {
  return countRoles(headedRoles(ctx), ctx.nodes).P;
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

function switchUnderWay(ctx) {
  for (let i = 0; i < ctx.transitions.length; i++) if (ctx.transitions[i].end === undefined) return true;
  for (let i = 0; i < ctx.nodes.length; i++) if (ctx.nodes[i].state === 'switching') return true;
  return false;
}

function modelOf(ctx, kind) {
  return Object.prototype.hasOwnProperty.call(ctx.model.byKind, kind) ? ctx.model.byKind[kind] : null;
}

// A small deterministic generator (mulberry32), seeded from the run and the
// window, so the same ctx always gives the same plan.
function makeRandom(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

// Forecast the mean request HORIZON slices ahead: a damped least-squares trend
// per field, plus residuals drawn from the window's slices.
function forecastDraws(loads, random) {
  const n = loads.length;
  const xbar = (n - 1) / 2;
  const fit = {};
  for (let f = 0; f < FIELDS.length; f++) {
    const name = FIELDS[f];
    let ybar = 0;
    let lo = Infinity;
    let hi = 0;
    for (let j = 0; j < n; j++) {
      const y = loads[j][name];
      ybar += y / n;
      if (y < lo) lo = y;
      if (y > hi) hi = y;
    }
    let sxy = 0;
    let sxx = 0;
    for (let j = 0; j < n; j++) {
      sxy += (j - xbar) * (loads[j][name] - ybar);
      sxx += (j - xbar) * (j - xbar);
    }
    const slope = n >= 3 && sxx > 0 ? sxy / sxx : 0;
    const residuals = [];
    for (let j = 0; j < n; j++) residuals.push(loads[j][name] - (ybar + slope * (j - xbar)));
    fit[name] = { ybar: ybar, slope: slope, lo: 0.5 * lo, hi: 2 * hi, residuals: residuals };
  }
  const accepted = mean(loads.map(function (w) { return w.accepted; }));
  const stages = [];
  for (let k = 1; k <= HORIZON; k++) {
    const draws = [];
    for (let d = 0; d < RESAMPLES; d++) {
      const j = Math.floor(random() * n);
      const w = { accepted: accepted > 0 ? accepted : null, restored: 0 };
      for (let f = 0; f < FIELDS.length; f++) {
        const name = FIELDS[f];
        const m = fit[name];
        const level = m.ybar + TREND_DAMPING * m.slope * (n - 1 + k - xbar);
        const v = Math.min(m.hi, Math.max(m.lo, level)) + m.residuals[j];
        w[name] = Math.max(name === 'cached' || name === 'decodeQueue' ? 0 : 1, v);
      }
      draws.push(w);
    }
    stages.push(draws);
  }
  return stages;
}

function meanOf(draws) {
  const w = { accepted: draws[0].accepted, restored: 0 };
  for (let f = 0; f < FIELDS.length; f++) w[FIELDS[f]] = mean(draws.map(function (d) { return d[FIELDS[f]]; }));
  return w;
}

// Seconds a node needs to finish what it runs before it can take another role.
function drainSeconds(ctx, node, role, w, base) {
  const m = modelOf(ctx, node.kind);
  if (m === null || node.running === 0) return base;
  let t;
  if (role === 'P') {
    const a = w.uncached * w.cached + (w.uncached * (w.uncached + 1)) / 2;
    t = node.running * (m.prefill.c0 + m.prefill.c1 * w.uncached + m.prefill.c2 * a);
  } else {
    const b = Math.min(m.maxDecodeBatch, node.running);
    const iterTime = m.decode.d0 + m.decode.d1 * (1 - Math.pow(1 - m.kFraction, m.tFwd * b)) + m.decode.d2 * b;
    const accepted = w.accepted > 0 ? w.accepted : m.tAcc;
    t = 0.5 * Math.max(1, (w.output - 1) / accepted) * iterTime;
  }
  return Math.max(base, t);
}

function observedDrain(ctx) {
  const ds = [];
  for (let i = 0; i < ctx.transitions.length; i++) {
    const t = ctx.transitions[i];
    if (t.end !== undefined) ds.push(t.end - t.start);
  }
  const d = mean(ds);
  return d > 0 ? Math.min(120, Math.max(1, d)) : DEFAULT_DRAIN_SECONDS;
}

// Throughput-seconds lost moving from split `from` to split `to` under w.
function transitionLoss(ctx, from, to, w, base, thetaTo) {
  let drain = 0;
  let moved = 0;
  const during = [];
  for (let i = 0; i < ctx.nodes.length; i++) {
    const n = ctx.nodes[i];
    if (n.state !== 'down' && from[i] !== to[i]) {
      moved++;
      drain = Math.max(drain, drainSeconds(ctx, n, from[i], w, base));
      during.push({ id: n.id, kind: n.kind, state: 'down', role: n.role, queueLength: 0, running: 0, kv: n.kv });
    } else {
      during.push(n);
    }
  }
  if (moved === 0) return 0;
  const thetaDuring = predictThroughput({ nodes: during, model: ctx.model }, to, w);
  return drain * Math.max(0, thetaTo - thetaDuring);
}

function score(values) {
  const m = mean(values);
  const se = values.length > 1 ? stdError(values) * Math.sqrt(values.length) : 0; // spread, not error
  return m - RISK * (se === Infinity ? 0 : se);
}

function plan(ctx) {
  const b = bounds(ctx);
  const headed = headedPrefill(ctx);
  const cur = Math.min(b.hi, Math.max(b.lo, headed));
  const repair = cur !== headed;
  const loads = measuredWorkloads(ctx);
  const stay = splitToRoles(cur, ctx.nodes);
  if (loads.length === 0 || b.lo === b.hi) return { roles: stay, change: repair };

  const slices = ctx.window.slices;
  const lastEnd = slices[slices.length - 1].end;
  const random = makeRandom((ctx.seed * 2654435761) ^ Math.floor(lastEnd * 1000));
  const stages = [loads].concat(forecastDraws(loads, random)); // stage 0: the window itself
  const stageMean = stages.map(meanOf);
  const seconds = ctx.window.sliceSeconds;
  const base = observedDrain(ctx);

  const ps = [];
  const roles = [];
  for (let p = b.lo; p <= b.hi; p++) {
    ps.push(p);
    roles.push(splitToRoles(p, ctx.nodes));
  }
  const S = ps.length;
  // value[k][s]: throughput-seconds of split s over stage k; thetaMean[k][s] at the stage's mean request.
  const value = [];
  const thetaMean = [];
  for (let k = 0; k < stages.length; k++) {
    value.push([]);
    thetaMean.push([]);
    for (let s = 0; s < S; s++) {
      const thetas = stages[k].map(function (w) { return predictThroughput(ctx, roles[s], w); });
      value[k].push(seconds * score(thetas));
      thetaMean[k].push(predictThroughput(ctx, roles[s], stageMean[k]));
    }
  }
  // Backward pass: best[s] = best value from stage k on, being on split s at stage k.
  let best = value[stages.length - 1].slice();
  for (let k = stages.length - 2; k >= 0; k--) {
    const next = [];
    for (let s = 0; s < S; s++) {
      let bestNext = -Infinity;
      for (let t = Math.max(0, s - MAX_STEP); t <= Math.min(S - 1, s + MAX_STEP); t++) {
        const loss = s === t ? 0 : transitionLoss(ctx, roles[s], roles[t], stageMean[k + 1], base, thetaMean[k + 1][t]);
        if (best[t] - loss > bestNext) bestNext = best[t] - loss;
      }
      next.push(value[k][s] + bestNext);
    }
    best = next;
  }
  const stayIndex = ps.indexOf(cur);
  const current = stay;
  let pick = stayIndex;
  let pickTotal = best[stayIndex];
  for (let s = 0; s < S; s++) {
    if (s === stayIndex) continue;
    const total = best[s] - transitionLoss(ctx, current, roles[s], stageMean[0], base, thetaMean[0][s]);
    if (total > pickTotal) {
      pickTotal = total;
      pick = s;
    }
  }
  const stayTotal = best[stayIndex];
  if (pick !== stayIndex && pickTotal - stayTotal > MARGIN * Math.abs(stayTotal)) return { roles: roles[pick], change: true };
  return { roles: stay, change: repair };
}

function memoKey(ctx) {
  const slices = ctx.window.slices;
  const last = slices.length > 0 ? slices[slices.length - 1] : null;
  const parts = [ctx.seed, slices.length, headedRoles(ctx).join(''), ctx.nodes.map(function (n) { return n.state[0]; }).join('')];
  if (last !== null) parts.push(last.end, last.arrivals, last.meanUncachedTokens, last.meanDecodeQueue);
  return parts.join('|');
}

function planned(ctx) {
  if (ctx.membership.length > 0) return plan(ctx);
  const key = memoKey(ctx);
  if (memo === null || memo.key !== key) {
    const p = plan(ctx);
    memo = { key: key, roles: p.roles, change: p.change };
  }
  return memo;
}

function shouldReschedule(ctx) {
  const headed = headedPrefill(ctx);
  const b = bounds(ctx);
  if (headed < b.lo || headed > b.hi) return true;
  if (ctx.membership.length === 0 && switchUnderWay(ctx)) return false;
  return planned(ctx).change;
}

function schedule(ctx) {
  const headed = headedPrefill(ctx);
  const b = bounds(ctx);
  const repair = headed < b.lo || headed > b.hi;
  if (!repair && ctx.membership.length === 0 && switchUnderWay(ctx)) return { roles: splitToRoles(headed, ctx.nodes) };
  return { roles: planned(ctx).roles.slice() };
}
