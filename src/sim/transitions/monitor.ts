import type { SimEvent } from '../events.js';
import { consultPolicy } from '../policy-driver.js';
import type { SimState } from '../sim-state.js';

/** The monitoring step: sample the queues, count prefill node-seconds, consult the policy, schedule the next step. */
export function onMonitor(s: SimState, now: number, step: number, out: SimEvent[] = []): SimEvent[] {
  let pq = 0;
  let dq = 0;
  let pNodes = 0;
  for (const n of s.nodes) {
    if (n.acceptsPrefill) {
      pNodes++;
      pq += n.prefillQueue.length;
    }
    if (n.servesDecode && n.up) dq += n.decode.waiting + n.decode.size;
    // decodeSlots 'dispatch': waiting for a decode slot before prefill, i.e. not yet prefilled.
    pq += n.preallocQueue.length;
  }
  pq += s.pendingPrefill.length;
  dq += s.pendingDecode.length;
  s.metrics.queues(now, pq, dq);
  s.metrics.kvSample(now, s.kv.unreferencedShare());
  if (now >= s.opts.warmupSeconds && now < s.endSeconds) s.prefillNodeSeconds += pNodes * step;
  if (s.opts.policy) consultPolicy(s, s.opts.policy, now, out);
  out.push({ type: 'monitor', at: now + step });
  return out;
}
