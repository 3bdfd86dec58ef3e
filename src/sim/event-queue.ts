/**
 * A binary min-heap of simulation events ordered by (time, rank, sequence
 * number): simultaneous events resolve the same way on every run (as in
 * Vidur's event queue). The rank comes from the event (the caller's rank
 * function, e.g. by event type); the sequence number is the queue's push
 * counter, which makes the order total: equal time and rank pop in push order.
 *
 * The heap is three parallel arrays (times, order keys, events) rather than
 * one entry object per event: the simulator pushes an event or two per event
 * it handles, and an entry object each time was garbage for the collector.
 * Sifting moves elements into a hole instead of swapping pairs (a
 * destructuring swap allocated a two-element array per level).
 */

/**
 * Rank and sequence number in one exact double: rank * 2^48 + seq. Ranks
 * below 32 and fewer than 2^48 pushes keep it under 2^53, so comparing keys
 * compares rank first, then push order.
 */
const SEQ_SPAN = 2 ** 48;
const MAX_RANK = 31;

export class EventQueue<E extends { readonly at: number }> {
  private readonly ats: number[] = [];
  private readonly keys: number[] = [];
  private readonly events: E[] = [];
  private nextSeq = 0;

  constructor(private readonly rankOf: (event: E) => number) {}

  get size(): number {
    return this.events.length;
  }

  push(event: E): void {
    const at = event.at;
    if (!Number.isFinite(at)) throw new RangeError(`event time must be finite, got ${at}`);
    const rank = this.rankOf(event);
    // rank >>> 0 !== rank: negative, fractional or not a number.
    if (rank >>> 0 !== rank || rank > MAX_RANK) throw new RangeError(`event rank must be an integer in [0, ${MAX_RANK}], got ${rank}`);
    const key = rank * SEQ_SPAN + this.nextSeq++;
    const { ats, keys, events } = this;
    let i = events.length;
    ats.push(at);
    keys.push(key);
    events.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pAt = ats[parent]!;
      if (pAt < at || (pAt === at && keys[parent]! < key)) break;
      ats[i] = pAt;
      keys[i] = keys[parent]!;
      events[i] = events[parent]!;
      i = parent;
    }
    ats[i] = at;
    keys[i] = key;
    events[i] = event;
  }

  peek(): E | undefined {
    return this.events[0];
  }

  pop(): E | undefined {
    const { ats, keys, events } = this;
    if (events.length === 0) return undefined;
    const top = events[0]!;
    const at = ats.pop()!;
    const key = keys.pop()!;
    const last = events.pop()!;
    const n = events.length;
    if (n === 0) return top;
    // Sift the last element down from the root: the smaller child moves up into the hole until the element fits.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      if (r < n && (ats[r]! < ats[l]! || (ats[r] === ats[l] && keys[r]! < keys[l]!))) m = r;
      const mAt = ats[m]!;
      if (at < mAt || (at === mAt && key < keys[m]!)) break;
      ats[i] = mAt;
      keys[i] = keys[m]!;
      events[i] = events[m]!;
      i = m;
    }
    ats[i] = at;
    keys[i] = key;
    events[i] = last;
    return top;
  }
}
