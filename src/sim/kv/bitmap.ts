import { grownSize } from './ids.js';

/** A growable set of non-negative integers, one bit each: the ever-produced blocks behind `ideal`. */
export class GrowableBitmap {
  private words = new Uint32Array(1024);

  add(id: number): void {
    const w = id >>> 5;
    if (w >= this.words.length) this.grow(w);
    this.words[w]! |= 1 << (id & 31);
  }

  has(id: number): boolean {
    const w = id >>> 5;
    // Out-of-range words read as undefined, and `undefined & x` is 0.
    return (this.words[w]! & (1 << (id & 31))) !== 0;
  }

  private grow(word: number): void {
    const next = new Uint32Array(grownSize(this.words.length, word));
    next.set(this.words);
    this.words = next;
  }
}
