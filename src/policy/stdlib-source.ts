import { PLANNING_SOURCE } from './stdlib-planning-source.js';

/**
 * The policy stdlib as JavaScript source text. It is one expression (a
 * function called at once) whose value is an object of plain functions, so
 * that the very same text can be evaluated inside the sandbox, where its
 * functions become globals before the policy runs, and on the host (stdlib.ts),
 * where planners, the evaluator and tests call them. Same text, same V8:
 * the same numbers on both sides.
 *
 * Rules for this text: plain ES2020, no imports, no host objects, no
 * randomness, no clock; it reads only its arguments and the JS builtins.
 * Functions call each other through the closure, not through globals, so a
 * policy that declares its own `mean` does not change what
 * `predictThroughput` computes.
 *
 * Throughput model (design section 3, planner mechanics), for a mean request
 * w = (t_uc uncached tokens, t_c cached tokens, t_out output tokens, t_acc
 * accepted per decode iteration, t_rst restored tokens), q_D the cluster's
 * mean decode queue (running + waiting decode requests) and q_P its mean
 * prefill queue (requests waiting for prefill):
 *
 *   prefill, per node of kind m:  mu_P = 1 / T_P(w)
 *       T_P(w) = c0 + c1*t_uc + c2*A + c3*t_rst,  A = t_uc*t_c + t_uc*(t_uc+1)/2
 *     (one request per prefill iteration: with contexts of many thousand
 *     tokens the fixed cost c0 is small, so batching changes little, and not
 *     counting on it keeps the estimate conservative)
 *   decode, per node of kind m, with nD decode nodes up:
 *       B = clamp((q_D + q_P) / nD, 1, maxDecodeBatch)
 *       T_D(B) = d0 + d1*phi(B) + d2*B,  phi(B) = 1 - (1 - k/E)^(t_fwd*B)
 *       iterations per request I = max(1, (t_out - 1) / t_acc)   (prefill makes the first token)
 *       mu_D = B / (I * T_D(B))
 *   Theta(P, D; w, q) = min( sum over up P nodes of mu_P , sum over up D nodes of mu_D )
 *
 * Why q_D + q_P and not q_D alone: mu_D is the decode rate at the batch the
 * decode nodes run (by Little's law, requests in decode / time in decode),
 * and that batch depends on the split. In a closed loop the requests in the
 * system are what both phases share: a split that drains a prefill backlog
 * hands those requests to decode, whose batches grow. Measured at a
 * prefill-bound split, q_D alone is small (decode is starved), so the old
 * rule predicted that moving nodes to prefill would make decode the
 * bottleneck at the starved batch size: on the shifting preset's mixed and
 * osworld phases a planner at 4P5D predicted 8P1D at 1.9 req/s where it
 * serves 6.4, and stayed put (bench/predictor-error.ts, docs/planner-study.md).
 * Where decode is the bottleneck q_P is small and nothing changes.
 *
 * Known limit: the mean request's A uses the means of t_uc and t_c, but in
 * coding-agent traffic the long uncached prompts (sub-agent starts, compactions)
 * come with short cached prefixes, so E[t_uc*t_c] < E[t_uc]*E[t_c]: prefill
 * time is overestimated (cc: prefill-bound splits predicted ~15% low). The
 * slices carry no per-request spread to correct it with.
 *
 * Window means: t_uc and t_c are weighted by each slice's arrivals, t_out and
 * t_acc by its completions, q_D and q_P are the plain means of the slices'
 * queues (slices are equally long). t_rst is not observed in ctx and is taken
 * as 0. A workload given without prefillQueue counts it as 0 (the q_D-only
 * rule). Nodes of a kind missing from ctx.model add no capacity.
 */
export const STDLIB_SOURCE = String.raw`(function () {
  'use strict';

  function isNum(x) {
    return typeof x === 'number' && x === x && x !== Infinity && x !== -Infinity;
  }

  // The finite numbers of xs, in order: null, undefined and NaN mean "no sample".
  function finite(xs) {
    const out = [];
    for (let i = 0; i < xs.length; i++) if (isNum(xs[i])) out.push(xs[i]);
    return out;
  }

  // Mean of the finite numbers in xs; NaN when there are none.
  function mean(xs) {
    const v = finite(xs);
    if (v.length === 0) return NaN;
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i];
    return s / v.length;
  }

  // Standard error of the mean (sample standard deviation / sqrt(n)) of the
  // finite numbers in xs; Infinity with fewer than two, so that "gain > 2
  // standard errors" never passes on no evidence.
  function stdError(xs) {
    const v = finite(xs);
    const n = v.length;
    if (n < 2) return Infinity;
    const m = mean(v);
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (v[i] - m) * (v[i] - m);
    return Math.sqrt(ss / (n - 1)) / Math.sqrt(n);
  }

  // p-th percentile (p in 0..100) of the finite numbers in xs, linear
  // interpolation between closest ranks; NaN when there are none.
  function percentile(xs, p) {
    if (!isNum(p) || p < 0 || p > 100) throw new RangeError('percentile: p must be a number in 0..100, got ' + String(p));
    const v = finite(xs).sort(function (a, b) { return a - b; });
    if (v.length === 0) return NaN;
    const rank = (p / 100) * (v.length - 1);
    const lo = Math.floor(rank);
    const hi = Math.ceil(rank);
    return v[lo] + (v[hi] - v[lo]) * (rank - lo);
  }

  function weightedMean(slices, field, weightField) {
    let s = 0;
    let sw = 0;
    for (let i = 0; i < slices.length; i++) {
      const v = slices[i][field];
      const w = slices[i][weightField];
      if (isNum(v) && isNum(w) && w > 0) {
        s += v * w;
        sw += w;
      }
    }
    if (sw > 0) return s / sw;
    const vs = [];
    for (let i = 0; i < slices.length; i++) vs.push(slices[i][field]);
    return mean(vs);
  }

  // The mean request of the planning window, or null when the window saw no
  // request to measure. accepted is null when unmeasured: each node kind's
  // model tAcc is used then.
  function meanWorkload(ctx) {
    const slices = ctx.window.slices;
    const uncached = weightedMean(slices, 'meanUncachedTokens', 'arrivals');
    const output = weightedMean(slices, 'meanOutputTokens', 'completions');
    if (!isNum(uncached) || !isNum(output)) return null;
    const cached = weightedMean(slices, 'meanCachedTokens', 'arrivals');
    const accepted = weightedMean(slices, 'meanAcceptedPerIter', 'completions');
    const queues = [];
    const prefillQueues = [];
    for (let i = 0; i < slices.length; i++) {
      queues.push(slices[i].meanDecodeQueue);
      prefillQueues.push(slices[i].meanPrefillQueue);
    }
    const decodeQueue = mean(queues);
    const prefillQueue = mean(prefillQueues);
    return {
      uncached: uncached,
      cached: isNum(cached) ? cached : 0,
      output: output,
      accepted: isNum(accepted) && accepted > 0 ? accepted : null,
      restored: 0,
      decodeQueue: isNum(decodeQueue) ? decodeQueue : 0,
      prefillQueue: isNum(prefillQueue) ? prefillQueue : 0,
    };
  }

  // The mean request of slice i, its unmeasured fields taken from the whole
  // window; null when the window has no measurement at all.
  function sliceWorkload(ctx, i) {
    const s = ctx.window.slices[i];
    if (s === undefined) throw new RangeError('sliceWorkload: no slice ' + String(i) + ' in ctx.window.slices');
    const w = meanWorkload(ctx);
    if (w === null) return null;
    return {
      uncached: isNum(s.meanUncachedTokens) ? s.meanUncachedTokens : w.uncached,
      cached: isNum(s.meanCachedTokens) ? s.meanCachedTokens : w.cached,
      output: isNum(s.meanOutputTokens) ? s.meanOutputTokens : w.output,
      accepted: isNum(s.meanAcceptedPerIter) && s.meanAcceptedPerIter > 0 ? s.meanAcceptedPerIter : w.accepted,
      restored: 0,
      decodeQueue: isNum(s.meanDecodeQueue) ? s.meanDecodeQueue : w.decodeQueue,
      prefillQueue: isNum(s.meanPrefillQueue) ? s.meanPrefillQueue : w.prefillQueue,
    };
  }

  function modelOf(ctx, kind) {
    const byKind = ctx.model.byKind;
    return Object.prototype.hasOwnProperty.call(byKind, kind) ? byKind[kind] : null;
  }

  // Requests/s one prefill node of model m sustains for the mean request w.
  function prefillRate(m, w) {
    const t = w.uncached;
    const a = t * w.cached + (t * (t + 1)) / 2;
    const time = m.prefill.c0 + m.prefill.c1 * t + m.prefill.c2 * a + m.prefill.c3 * (w.restored || 0);
    return time > 0 ? 1 / time : 0;
  }

  // Requests/s one decode node of model m sustains with perNodeQueue requests to decode.
  function decodeRate(m, w, perNodeQueue) {
    const b = Math.min(m.maxDecodeBatch, Math.max(1, perNodeQueue));
    const phi = 1 - Math.pow(1 - m.kFraction, m.tFwd * b);
    const time = m.decode.d0 + m.decode.d1 * phi + m.decode.d2 * b;
    const accepted = isNum(w.accepted) && w.accepted > 0 ? w.accepted : m.tAcc;
    const iterations = Math.max(1, (w.output - 1) / accepted);
    return time > 0 ? b / (iterations * time) : 0;
  }

  function checkRoles(ctx, roles, who) {
    if (!Array.isArray(roles) || roles.length !== ctx.nodes.length) {
      throw new RangeError(who + ': roles must have one entry per node of ctx.nodes (' + ctx.nodes.length + ')');
    }
  }

  // Requests/s each phase of the split sustains: { prefill, decode }. Only up
  // (not down) nodes count. workload defaults to meanWorkload(ctx); with no
  // workload to go by, both are 0.
  function phaseCapacity(ctx, roles, workload) {
    checkRoles(ctx, roles, 'phaseCapacity');
    const w = workload === undefined ? meanWorkload(ctx) : workload;
    if (w === null || w === undefined) return { prefill: 0, decode: 0 };
    let decodeNodes = 0;
    for (let i = 0; i < roles.length; i++) if (ctx.nodes[i].state !== 'down' && roles[i] === 'D') decodeNodes++;
    const inSystem = w.decodeQueue + (isNum(w.prefillQueue) ? w.prefillQueue : 0);
    const perNodeQueue = decodeNodes > 0 ? inSystem / decodeNodes : 0;
    let prefill = 0;
    let decode = 0;
    for (let i = 0; i < roles.length; i++) {
      const node = ctx.nodes[i];
      if (node.state === 'down') continue;
      const m = modelOf(ctx, node.kind);
      if (m === null) continue;
      if (roles[i] === 'P') prefill += prefillRate(m, w);
      else if (roles[i] === 'D') decode += decodeRate(m, w, perNodeQueue);
    }
    return { prefill: prefill, decode: decode };
  }

  // Theta of the split: requests/s, limited by the slower phase.
  function predictThroughput(ctx, roles, workload) {
    const c = phaseCapacity(ctx, roles, workload);
    return Math.min(c.prefill, c.decode);
  }

  // Roles with round(nP) of the up nodes on prefill and the rest on decode,
  // changing as few nodes as possible: nodes keep the role they have or are
  // heading to, and the least loaded nodes (queue + running) are the ones
  // moved, since they drain fastest. Down nodes keep their role (ignored).
  function splitToRoles(nP, nodes) {
    const roles = [];
    const up = [];
    for (let i = 0; i < nodes.length; i++) {
      roles.push(nodes[i].targetRole || nodes[i].role);
      if (nodes[i].state !== 'down') up.push(i);
    }
    const want = Math.max(0, Math.min(up.length, Math.round(nP)));
    // Which nodes to move: a restarting node first (it is out of service
    // anyway), a node already switching last (moving it back wastes its
    // drain), otherwise the least loaded.
    function load(i) {
      if (nodes[i].state === 'restarting') return -1;
      if (nodes[i].state === 'switching') return 1e12;
      return nodes[i].queueLength + nodes[i].running;
    }
    function byLoad(a, b) { return load(a) - load(b) || a - b; }
    const ps = up.filter(function (i) { return roles[i] === 'P'; }).sort(byLoad);
    const ds = up.filter(function (i) { return roles[i] === 'D'; }).sort(byLoad);
    for (let k = 0; k < ps.length - want; k++) roles[ps[k]] = 'D';
    for (let k = 0; k < want - ps.length; k++) roles[ds[k]] = 'P';
    return roles;
  }

${PLANNING_SOURCE}
  // { P, D }: how many entries of roles are prefill and decode; with nodes
  // given, down nodes are not counted.
  function countRoles(roles, nodes) {
    let p = 0;
    let d = 0;
    for (let i = 0; i < roles.length; i++) {
      if (nodes && nodes[i] && nodes[i].state === 'down') continue;
      if (roles[i] === 'P') p++;
      else if (roles[i] === 'D') d++;
    }
    return { P: p, D: d };
  }

  return {
    mean: mean,
    stdError: stdError,
    percentile: percentile,
    meanWorkload: meanWorkload,
    sliceWorkload: sliceWorkload,
    phaseCapacity: phaseCapacity,
    predictThroughput: predictThroughput,
    predictWithHeadroom: predictWithHeadroom,
    splitToRoles: splitToRoles,
    splitByKind: splitByKind,
    countRoles: countRoles,
  };
})()`;

/** The names the stdlib defines, as globals in the sandbox and as properties of `stdlib` on the host. */
export const STDLIB_NAMES = [
  'mean',
  'stdError',
  'percentile',
  'meanWorkload',
  'sliceWorkload',
  'phaseCapacity',
  'predictThroughput',
  'predictWithHeadroom',
  'splitToRoles',
  'splitByKind',
  'countRoles',
] as const;
