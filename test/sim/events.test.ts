import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/sim/event-queue.js';
import { createEventQueue, EVENT_RANK, type SimEvent } from '../../src/sim/events.js';

describe('the event queue', () => {
  it('pops by time, then the rank of the type, then push order; events carry no rank or sequence number', () => {
    const q = createEventQueue();
    const pushed: SimEvent[] = [
      { type: 'monitor', at: 5 },
      { type: 'workload', at: 5, event: { kind: 'wake', at: 5, token: 1 } },
      { type: 'prefill-done', at: 5, node: 1, generation: 0 },
      { type: 'decode', at: 5, node: 2, token: 1 },
      { type: 'decode', at: 5, node: 0, token: 1 },
      { type: 'membership', at: 5, change: { node: 3, at: 5, event: 'down' } },
      { type: 'learn', at: 4.5, deadline: false },
    ];
    for (const ev of pushed) q.push(ev);
    const popped: SimEvent[] = [];
    for (let ev = q.pop(); ev; ev = q.pop()) popped.push(ev);
    expect(popped.map((e) => `${e.type}${'node' in e ? e.node : ''}`)).toEqual(['learn', 'membership', 'decode2', 'decode0', 'prefill-done1', 'workload', 'monitor']);
    // The queue hands back the events as pushed, unchanged.
    expect(popped[1]).toBe(pushed[5]);
    expect(Object.keys(popped[2]!)).toEqual(['type', 'at', 'node', 'token']);
  });

  it('ranks every event type, each once; decode before prefill-done, the monitor last', () => {
    const ranks = Object.values(EVENT_RANK);
    expect(new Set(ranks).size).toBe(ranks.length);
    expect(EVENT_RANK.decode).toBeLessThan(EVENT_RANK['prefill-done']);
    expect(EVENT_RANK.membership).toBe(Math.min(...ranks));
    expect(EVENT_RANK.monitor).toBe(Math.max(...ranks));
  });

  it('is a heap: many events come out sorted, ties in push order', () => {
    const q = new EventQueue<{ at: number; id: number; rank: number }>((e) => e.rank);
    let x = 7;
    const items = Array.from({ length: 500 }, (_, id) => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return { at: x % 13, rank: (x >> 5) % 3, id };
    });
    for (const it of items) q.push(it);
    expect(q.size).toBe(500);
    const out: number[] = [];
    for (let e = q.pop(); e; e = q.pop()) out.push(e.id);
    const sorted = [...items].sort((a, b) => a.at - b.at || a.rank - b.rank || a.id - b.id).map((e) => e.id);
    expect(out).toEqual(sorted);
    expect(() => q.push({ at: Infinity, id: 0, rank: 0 })).toThrow(RangeError);
    // Ranks share one exact double with the push counter: they must be small whole numbers.
    for (const rank of [-1, 0.5, 32, NaN]) expect(() => q.push({ at: 0, id: 0, rank })).toThrow(RangeError);
  });
});
