/**
 * A growable column of doubles: 8 bytes a value, where a JS array of
 * records kept whole requests (their block lists: kilobytes each) alive.
 * The metrics keep the scored period's exact samples in these, so that
 * percentiles stay exact while a day of serving stays small.
 */
export class Samples {
  private buf: Float64Array;
  private n = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Float64Array(Math.max(1, initialCapacity));
  }

  get length(): number {
    return this.n;
  }

  push(value: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = value;
  }

  /** The values pushed so far, in order (a view: valid until the next push). */
  values(): Float64Array {
    return this.buf.subarray(0, this.n);
  }
}

/** A running sum and count, added to in arrival order (so a mean equals the mean of the same values in an array). */
export class RunningMean {
  sum = 0;
  count = 0;

  add(value: number): void {
    this.sum += value;
    this.count++;
  }

  get mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }
}
