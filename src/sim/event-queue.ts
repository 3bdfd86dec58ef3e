/**
 * A binary min-heap of simulation events ordered by (time, kind rank, sequence
 * number): simultaneous events resolve the same way on every run (as in
 * Vidur's event queue), and the sequence number makes the order total.
 */
export interface QueuedEvent {
  readonly at: number;
  readonly rank: number;
  seq: number;
}

export class EventQueue<E extends QueuedEvent> {
  private heap: E[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(event: E): void {
    if (!Number.isFinite(event.at)) throw new RangeError(`event time must be finite, got ${event.at}`);
    event.seq = this.nextSeq++;
    const heap = this.heap;
    heap.push(event);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  peek(): E | undefined {
    return this.heap[0];
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
    return top;
  }
}

function before(a: QueuedEvent, b: QueuedEvent): boolean {
  if (a.at !== b.at) return a.at < b.at;
  if (a.rank !== b.rank) return a.rank < b.rank;
  return a.seq < b.seq;
}
