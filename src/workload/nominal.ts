import { EventHeap } from './event-heap.js';
import type { SimRequest, WorkloadEvent, WorkloadSource } from './types.js';

/**
 * The nominal service model used to generate traces (and in tests): no
 * queueing, no contention; a call completes 0.5 s after it arrives plus
 * 10 ms per output token. It only decides *when* the harness sees
 * completions; recorded traces keep the dependencies, not these latencies.
 */
export const NOMINAL_BASE_SECONDS = 0.5;
export const NOMINAL_SECONDS_PER_OUTPUT_TOKEN = 0.01;

export function nominalServiceSeconds(request: SimRequest): number {
  return NOMINAL_BASE_SECONDS + request.outputTokens * NOMINAL_SECONDS_PER_OUTPUT_TOKEN;
}

type Pending =
  | { kind: 'arrive'; request: SimRequest }
  | { kind: 'complete'; request: SimRequest }
  | { kind: 'wake'; token: number }
  | { kind: 'branch-end'; branch: number };

export interface NominalRunHooks {
  /** A request arrived (its `at`). */
  onArrive?(request: SimRequest, t: number): void;
  onCompleteRequest?(request: SimRequest, t: number): void;
  onBranchEnd?(branch: number, t: number): void;
}

/**
 * Drive a source until simulated time `horizon`, each request served in
 * `service(request)` seconds. Events at the same time are handled in the
 * order they were produced.
 */
export function runNominal(
  source: WorkloadSource,
  horizon: number,
  hooks: NominalRunHooks = {},
  service: (request: SimRequest) => number = nominalServiceSeconds,
): void {
  const heap = new EventHeap<Pending>();
  const schedule = (events: WorkloadEvent[]): void => {
    for (const e of events) {
      if (e.kind === 'request') heap.push(e.at, { kind: 'arrive', request: e.request });
      else if (e.kind === 'wake') heap.push(e.at, { kind: 'wake', token: e.token });
      else heap.push(e.at, { kind: 'branch-end', branch: e.branch });
    }
  };
  schedule(source.start());
  while (heap.size && heap.peekTime() <= horizon) {
    const { time, item } = heap.pop()!;
    switch (item.kind) {
      case 'arrive':
        hooks.onArrive?.(item.request, time);
        heap.push(time + service(item.request), { kind: 'complete', request: item.request });
        break;
      case 'complete':
        hooks.onCompleteRequest?.(item.request, time);
        schedule(source.onComplete(item.request.id, time));
        source.takeRetired?.(); // nothing here keeps per-block state: taken so that the source does not hold them

        break;
      case 'wake':
        schedule(source.onWake(item.token, time));
        break;
      case 'branch-end':
        hooks.onBranchEnd?.(item.branch, time);
        break;
    }
  }
}
