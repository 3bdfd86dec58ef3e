/*
 * dynamo-like: Dynamo's load-based planner on a fixed cluster.
 *
 * What it does: every ADJUSTMENT_SECONDS, and never while a switch or restart
 * is under way (Dynamo blocks metric pulling and adjustment while workers are
 * being added or removed, then starts a fresh interval), it moves at most one
 * node. Decode asks for a node
 * when its KV load, averaged over the decode nodes, is above KV_HIGH, or when
 * requests wait for decode (more than QUEUE_HIGH per decode node); prefill
 * asks for one when the prefill queue holds more than PREFILL_QUEUE_HIGH
 * requests. On a fixed cluster a scale-up is a move from the other phase, so
 * a phase gets a node only when the other is not asking for one (when both
 * ask, nothing moves). Membership changes only trigger a repair when a phase
 * is left empty.
 *
 * Signals: read the way Dynamo's planner gets them...
 * - KV load of a decode node = GPU KV use (kv.l1Used / kv.l1Capacity) plus
 *   0.02 per waiting request (the planner's own estimate of the KV that
 *   waiting requests will take once scheduled).
 * - The prefill queue is the one shared queue remote prefills wait in. With
 *   conditional disaggregation (CONDITIONAL_DISAGG, on in Dynamo's example
 *   deployments), a decode worker prefills a request itself when that queue
 *   already holds MAX_PREFILL_QUEUE (max-prefill-queue-size, 2 by default)
 *   requests. So the planner never sees a prefill queue longer than that,
 *   and what prefill cannot take shows up as requests waiting on the decode
 *   workers. The simulator always prefills on prefill nodes, so this seed
 *   rebuilds that view from ctx: the cluster's prefill queue (latest slice,
 *   or the prefill nodes' queues now, whichever is larger) is cut at
 *   MAX_PREFILL_QUEUE and the rest is counted as decode waiting, spread over
 *   the decode nodes.
 * - Decode waiting also counts the latest slice's requests beyond what full
 *   decode batches (model maxDecodeBatch) hold.
 * Thresholds are Dynamo's load-planner defaults (decode KV 0.9, prefill
 * queue 5 requests); the 180 s adjustment interval is its default too. No throughput model, no window statistics beyond the latest slice.
 *
 * Trade-off: cheap (a few sums per call) and minimal reconfiguration (one
 * node per decision), so it is slow to follow a large shift. It reacts to
 * symptoms, not to a prediction, and reads a prefill backlog as decode load:
 * when prefill is the bottleneck (long uncached prompts, restart mechanics
 * that lose the prefix cache) it keeps moving nodes from prefill to decode,
 * which deepens the backlog it is reacting to (published: Dynamo slid from
 * 6P3D to 2P7D on cc with 90 agents). Setting CONDITIONAL_DISAGG to false
 * shows it the whole prefill queue.
 */

const ADJUSTMENT_SECONDS = 180; // Dynamo's adjustment interval
const KV_HIGH = 0.9; // decode KV load that asks for another decode node
const QUEUE_HIGH = 8; // waiting decode requests per decode node that ask for another
const PREFILL_QUEUE_HIGH = 5; // requests in the prefill queue that ask for another prefill node
const CONDITIONAL_DISAGG = true; // decode workers prefill locally when the prefill queue is full
const MAX_PREFILL_QUEUE = 2; // Dynamo's max-prefill-queue-size
const WAITING_KV = 0.02; // KV share the planner assumes per waiting request

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

// The decode and prefill symptoms as Dynamo's planner sees them (see the header).
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
  const prefillQueue = Math.max(pWait, s !== null ? s.meanPrefillQueue : 0);
  // Conditional disaggregation: what the prefill queue cannot hold waits on decode workers.
  const seenPrefillQueue = CONDITIONAL_DISAGG ? Math.min(prefillQueue, MAX_PREFILL_QUEUE) : prefillQueue;
  const localPrefills = prefillQueue - seenPrefillQueue;
  // Requests beyond what full decode batches hold are waiting for decode.
  const overflow = s !== null ? Math.max(0, s.meanDecodeQueue - batchSum) : 0;
  const decodeWait = dNodes > 0 ? (Math.max(dWait, overflow) + localPrefills) / dNodes : 0;
  return {
    P: pNodes,
    D: dNodes,
    kv: (kvNodes > 0 ? kvSum / kvNodes : 0) + WAITING_KV * decodeWait,
    decodeWait: decodeWait,
    prefillQueue: seenPrefillQueue,
  };
}

// Dynamo blocks while workers are being added or removed and starts a fresh
// adjustment interval (metrics pulled anew) once they are: no decision until
// ADJUSTMENT_SECONDS after the last decision and after the last switch ended.
function cooling(ctx) {
  let since = ctx.lastRescheduleAt;
  for (let i = 0; i < ctx.transitions.length; i++) {
    const t = ctx.transitions[i];
    if (t.end === undefined) return true;
    if (since === null || t.end > since) since = t.end;
  }
  return since !== null && ctx.now - since < ADJUSTMENT_SECONDS;
}

// The prefill count to move to (the current one when nothing should change).
function target(ctx) {
  const sig = signals(ctx);
  const b = bounds(ctx, sig.P);
  const cur = Math.min(b.hi, Math.max(b.lo, sig.P));
  if (cur !== sig.P || cooling(ctx)) return cur;
  const decodeWants = sig.kv > KV_HIGH || sig.decodeWait > QUEUE_HIGH;
  const prefillWants = sig.prefillQueue > PREFILL_QUEUE_HIGH;
  if (decodeWants && !prefillWants) return Math.max(b.lo, cur - 1);
  if (prefillWants && !decodeWants) return Math.min(b.hi, cur + 1);
  return cur;
}

function shouldReschedule(ctx) {
  return target(ctx) !== signals(ctx).P;
}

function schedule(ctx) {
  return { roles: splitToRoles(target(ctx), ctx.nodes) };
}
