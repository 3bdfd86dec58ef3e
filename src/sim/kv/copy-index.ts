/**
 * (id, node) -> non-negative value (here: block group -> copy slab), as an
 * open-addressing hash table with linear probing over [key, value] pairs in
 * one Int32Array, so a lookup is usually one cache line. Deletion shifts later
 * entries back instead of leaving tombstones, so probe lengths stay short
 * under constant churn.
 */
const EMPTY = -1;

export class CopyIndex {
  private pairs: Int32Array;
  private bits: number;
  private count = 0;

  constructor(initialBits = 12) {
    this.bits = initialBits;
    this.pairs = new Int32Array(2 << initialBits).fill(EMPTY);
  }

  get size(): number {
    return this.count;
  }

  /** The value of (id, node), or -1. Keys pack id * 32 + node (id < 2^26, node < 32). */
  get(id: number, node: number): number {
    const key = id * 32 + node;
    const pairs = this.pairs;
    const mask = pairs.length - 1;
    for (let i = this.home(key); ; i = (i + 2) & mask) {
      const k = pairs[i]!;
      if (k === key) return pairs[i + 1]!;
      if (k === EMPTY) return -1;
    }
  }

  /** The key must be absent. */
  add(id: number, node: number, value: number): void {
    if ((this.count + 1) * 2 > this.pairs.length >> 1) this.rehash(this.bits + 1);
    this.insert(id * 32 + node, value);
    this.count++;
  }

  /** The key must be present. */
  delete(id: number, node: number): void {
    const key = id * 32 + node;
    const pairs = this.pairs;
    const mask = pairs.length - 1;
    let i = this.home(key);
    while (pairs[i] !== key) i = (i + 2) & mask;
    // Backward shift: pull later entries of the cluster into the hole when their home allows.
    for (let j = (i + 2) & mask; pairs[j] !== EMPTY; j = (j + 2) & mask) {
      const h = this.home(pairs[j]!);
      // Entry j may move to hole i unless its home lies cyclically in (i, j].
      const stays = i <= j ? h > i && h <= j : h > i || h <= j;
      if (stays) continue;
      pairs[i] = pairs[j]!;
      pairs[i + 1] = pairs[j + 1]!;
      i = j;
    }
    pairs[i] = EMPTY;
    this.count--;
  }

  private home(key: number): number {
    return (Math.imul(key, 0x9e3779b1) >>> (32 - this.bits)) << 1;
  }

  private insert(key: number, value: number): void {
    const pairs = this.pairs;
    const mask = pairs.length - 1;
    let i = this.home(key);
    while (pairs[i] !== EMPTY) i = (i + 2) & mask;
    pairs[i] = key;
    pairs[i + 1] = value;
  }

  private rehash(bits: number): void {
    const old = this.pairs;
    this.bits = bits;
    this.pairs = new Int32Array(2 << bits).fill(EMPTY);
    for (let i = 0; i < old.length; i += 2) if (old[i] !== EMPTY) this.insert(old[i]!, old[i + 1]!);
  }
}
