import { UsageError } from '../common/errors.js';

/**
 * A fixed-capacity ring: pushing onto a full ring overwrites the oldest item.
 * Memory stays bounded however long the data plane serves.
 */
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  /** Index of the next write. */
  private head = 0;
  private count = 0;
  private pushes = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new UsageError(`ring capacity must be a whole number >= 1, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Items pushed since creation, overwritten ones included. */
  get totalPushed(): number {
    return this.pushes;
  }

  push(item: T): void {
    this.items[this.head] = item;
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    this.pushes++;
  }

  /** The i-th item, oldest first (0 = oldest kept). */
  at(i: number): T | undefined {
    if (i < 0 || i >= this.count) return undefined;
    return this.items[(this.head - this.count + i + this.capacity) % this.capacity];
  }

  /** The newest item. */
  last(): T | undefined {
    return this.at(this.count - 1);
  }

  /** The kept items, oldest first: a new array (the ring is not changed). */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.at(i)!);
    return out;
  }

  /** The newest `n` items, oldest first. */
  lastN(n: number): T[] {
    const take = Math.max(0, Math.min(n, this.count));
    const out: T[] = [];
    for (let i = this.count - take; i < this.count; i++) out.push(this.at(i)!);
    return out;
  }
}
