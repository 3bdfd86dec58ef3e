/**
 * A binary min-heap of simulation events ordered by (time, rank, sequence
 * number): simultaneous events resolve the same way on every run (as in
 * Vidur's event queue). The rank comes from the event (the caller's rank
 * function, e.g. by event type); the sequence number is the queue's push
 * counter, which makes the order total: equal time and rank pop in push order.
 */
interface Entry<E> {
  readonly at: number;
  readonly rank: number;
  readonly seq: number;
  readonly event: E;
}

export class EventQueue<E extends { readonly at: number }> {
  private heap: Entry<E>[] = [];
  private nextSeq = 0;

  constructor(private readonly rankOf: (event: E) => number) {}

  get size(): number {
    return this.heap.length;
  }

  push(event: E): void {
    if (!Number.isFinite(event.at)) throw new RangeError(`event time must be finite, got ${event.at}`);
    const heap = this.heap;
    heap.push({ at: event.at, rank: this.rankOf(event), seq: this.nextSeq++, event });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  peek(): E | undefined {
    return this.heap[0]?.event;
  }

  pop(): E | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top.event;
  }
}

function before<E>(a: Entry<E>, b: Entry<E>): boolean {
  if (a.at !== b.at) return a.at < b.at;
  if (a.rank !== b.rank) return a.rank < b.rank;
  return a.seq < b.seq;
}
