/*
 * dynamo-like: threshold-and-cooldown scaling in the style of Dynamo's planner.
 *
 * What it does: watches the decode side. When decode nodes run out of KV
 * memory (mean GPU KV utilisation above KV_HIGH) or requests pile up waiting
 * for decode (waiting requests per decode node above QUEUE_HIGH), it moves one
 * prefill node to decode. When decode is idle (KV below KV_LOW and almost no
 * decode wait) while prefill has a backlog, it gives one decode node back to
 * prefill. Between the two bands it does nothing. After any change it waits
 * COOLDOWN_SECONDS, and never acts while a switch is under way. Membership
 * changes only trigger a repair when a phase is left empty.
 *
 * Signals: per decode node GPU KV use (kv.l1Used / kv.l1Capacity) and queue
 * length; the latest slice's mean decode queue against the model's
 * maxDecodeBatch (requests beyond a full batch are waiting); prefill nodes'
 * queue length and the latest slice's mean prefill queue. No throughput
 * model, no window statistics beyond the latest slice.
 *
 * Trade-off: cheap (a few sums per call), conservative replanning (a long
 * cooldown, a dead band between thresholds) and minimal reconfiguration (one
 * node per decision), so it is slow to follow a large shift: reaching the
 * right split from far away takes several cooldowns. It reacts to symptoms
 * (memory, queues), not to a prediction, so it cannot see a prefill/decode
 * imbalance that has not yet turned into a queue.
 */

const COOLDOWN_SECONDS = 180;
const KV_HIGH = 0.9; // decode GPU KV utilisation that asks for another decode node
const KV_LOW = 0.5; // below this (and no decode wait) decode can spare a node
const QUEUE_HIGH = 8; // waiting decode requests per decode node that asks for another
const QUEUE_LOW = 1; // decode wait per node under which decode counts as idle
const PREFILL_BACKLOG = 2; // waiting prefill requests per prefill node worth a node back

function upCount(ctx) {
  let up = 0;
  for (let i = 0; i < ctx.nodes.length; i++) if (ctx.nodes[i].state !== 'down') up++;
  return up;
}

function headedRoles(ctx) {
  return ctx.nodes.map(function (n) { return n.targetRole || n.role; });
}

function bounds(ctx, curP) {
  const up = upCount(ctx);
  if (up < 2) {
    const p = Math.min(up, curP);
    return { lo: p, hi: p };
  }
  const minP = Math.max(1, ctx.limits.minPrefill);
  const minD = Math.max(1, ctx.limits.minDecode);
  if (up < minP + minD) return { lo: 1, hi: up - 1 };
  return { lo: minP, hi: up - minD };
}

function latestSlice(ctx) {
  const slices = ctx.window.slices;
  return slices.length > 0 ? slices[slices.length - 1] : null;
}

// The decode and prefill symptoms, from the nodes and the latest slice.
function signals(ctx) {
  const roles = headedRoles(ctx);
  let kvSum = 0;
  let kvNodes = 0;
  let dWait = 0;
  let dNodes = 0;
  let pWait = 0;
  let pNodes = 0;
  let batchSum = 0;
  for (let i = 0; i < ctx.nodes.length; i++) {
    const n = ctx.nodes[i];
    if (n.state === 'down') continue;
    if (roles[i] === 'D') {
      dNodes++;
      if (n.state === 'active') {
        dWait += n.queueLength;
        if (n.kv.l1Capacity > 0) {
          kvSum += n.kv.l1Used / n.kv.l1Capacity;
          kvNodes++;
        }
      }
      const m = Object.prototype.hasOwnProperty.call(ctx.model.byKind, n.kind) ? ctx.model.byKind[n.kind] : null;
      batchSum += m !== null ? m.maxDecodeBatch : 0;
    } else {
      pNodes++;
      if (n.state === 'active') pWait += n.queueLength;
    }
  }
  const s = latestSlice(ctx);
  // Requests beyond what full decode batches hold are waiting for decode.
  const overflow = s !== null && dNodes > 0 ? Math.max(0, s.meanDecodeQueue - batchSum) / dNodes : 0;
  const prefillQueue = s !== null && pNodes > 0 ? s.meanPrefillQueue / pNodes : 0;
  return {
    P: pNodes,
    D: dNodes,
    kv: kvNodes > 0 ? kvSum / kvNodes : 0,
    decodeWait: Math.max(dNodes > 0 ? dWait / dNodes : 0, overflow),
    prefillWait: Math.max(pNodes > 0 ? pWait / pNodes : 0, prefillQueue),
  };
}

function cooling(ctx) {
  for (let i = 0; i < ctx.transitions.length; i++) if (ctx.transitions[i].end === undefined) return true;
  return ctx.lastRescheduleAt !== null && ctx.now - ctx.lastRescheduleAt < COOLDOWN_SECONDS;
}

// The prefill count to move to (the current one when nothing should change).
function target(ctx) {
  const sig = signals(ctx);
  const b = bounds(ctx, sig.P);
  const cur = Math.min(b.hi, Math.max(b.lo, sig.P));
  if (cur !== sig.P || cooling(ctx)) return cur;
  if (sig.kv > KV_HIGH || sig.decodeWait > QUEUE_HIGH) return Math.max(b.lo, cur - 1);
  if (sig.kv < KV_LOW && sig.decodeWait < QUEUE_LOW && sig.prefillWait > PREFILL_BACKLOG) return Math.min(b.hi, cur + 1);
  return cur;
}

function shouldReschedule(ctx) {
  return target(ctx) !== signals(ctx).P;
}

function schedule(ctx) {
  return { roles: splitToRoles(target(ctx), ctx.nodes) };
}
