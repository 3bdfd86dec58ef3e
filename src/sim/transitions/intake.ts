import type { SimEvent } from '../events.js';
import { RequestState } from '../request-state.js';
import { forgetBranch } from '../routing/prefill.js';
import { scheduleWorkload, type SimState } from '../sim-state.js';
import { dispatchRequest } from './slot-admission.js';

/** Workload intake: new requests go to prefill, ended branches release their KV (and retired ids their slots), agent wake-ups ask the source for more. */
export function onWorkload(s: SimState, ev: Extract<SimEvent, { type: 'workload' }>, now: number, out: SimEvent[] = []): SimEvent[] {
  const event = ev.event;
  s.pendingWorkloadEvents--;
  switch (event.kind) {
    case 'request': {
      const rs = new RequestState(event.request, now);
      s.requests.set(event.request.id, rs);
      s.metrics.arrival(now);
      dispatchRequest(s, rs, now, out);
      break;
    }
    case 'branch-end': {
      s.kv.endBranch(event.branch);
      forgetBranch(s.prefillRouter, event.branch);
      // An agent's last branch end: its ids are named by no later request, and their KV slots go once no copy is left.
      const retired = s.opts.source.takeRetired?.();
      if (retired) for (const [first, count] of retired) s.kv.retire(first, count);
      break;
    }
    case 'wake':
      for (const next of s.opts.source.onWake(event.token, now)) scheduleWorkload(s, next, now, out);
      break;
  }
  return out;
}
