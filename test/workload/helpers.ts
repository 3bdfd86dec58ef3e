import { expandBlocks, type RequestLine, type Trace, type TraceEvent } from '../../src/workload/index.js';

export function requestsOf(trace: Trace): RequestLine[] {
  return trace.events.filter((e): e is RequestLine => e.type === 'request');
}

/** Requests of each branch in order. */
export function byBranch(trace: Trace): Map<number, RequestLine[]> {
  const map = new Map<number, RequestLine[]>();
  for (const r of requestsOf(trace)) {
    const list = map.get(r.branch!) ?? [];
    list.push(r);
    map.set(r.branch!, list);
  }
  return map;
}

export function ids(list: RequestLine['blocks']): number[] {
  return expandBlocks(list);
}

export function startsWith(list: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}

export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Events of one type; an intersection (not Extract) because fork and subagent share a line type. */
export function eventsOfType<T extends TraceEvent['type']>(trace: Trace, type: T): (TraceEvent & { type: T })[] {
  return trace.events.filter((e) => e.type === type) as (TraceEvent & { type: T })[];
}
