/**
 * (id, node) -> non-negative value (here: block group -> copy slab), as an
 * open-addressing hash table with linear probing over [id, node, value, -]
 * entries in one Int32Array, so a lookup is usually one cache line. Id and
 * node are stored apart, not packed, so that neither bounds the other (ids
 * up to 2^26, thousands of nodes). Deletion shifts later entries back
 * instead of leaving tombstones, so probe lengths stay short under constant
 * churn.
 */
const EMPTY = -1;
const ENTRY = 4;

export class CopyIndex {
  /** Entries of ENTRY int32s: id (EMPTY if free), node, value. */
  private pairs: Int32Array;
  private bits: number;
  private count = 0;

  constructor(initialBits = 12) {
    this.bits = initialBits;
    this.pairs = new Int32Array(ENTRY << initialBits).fill(EMPTY);
  }

  get size(): number {
    return this.count;
  }

  /** The value of (id, node), or -1. */
  get(id: number, node: number): number {
    const pairs = this.pairs;
    const mask = pairs.length - 1;
    for (let i = this.home(id, node); ; i = (i + ENTRY) & mask) {
      const k = pairs[i]!;
      if (k === id && pairs[i + 1] === node) return pairs[i + 2]!;
      if (k === EMPTY) return -1;
    }
  }

  /** The key must be absent. */
  add(id: number, node: number, value: number): void {
    if ((this.count + 1) * 2 > this.pairs.length / ENTRY) this.rehash(this.bits + 1);
    this.insert(id, node, value);
    this.count++;
  }

  /** The key must be present. */
  delete(id: number, node: number): void {
    const pairs = this.pairs;
    const mask = pairs.length - 1;
    let i = this.home(id, node);
    while (pairs[i] !== id || pairs[i + 1] !== node) i = (i + ENTRY) & mask;
    // Backward shift: pull later entries of the cluster into the hole when their home allows.
    for (let j = (i + ENTRY) & mask; pairs[j] !== EMPTY; j = (j + ENTRY) & mask) {
      const h = this.home(pairs[j]!, pairs[j + 1]!);
      // Entry j may move to hole i unless its home lies cyclically in (i, j].
      const stays = i <= j ? h > i && h <= j : h > i || h <= j;
      if (stays) continue;
      pairs[i] = pairs[j]!;
      pairs[i + 1] = pairs[j + 1]!;
      pairs[i + 2] = pairs[j + 2]!;
      i = j;
    }
    pairs[i] = EMPTY;
    this.count--;
  }

  private home(id: number, node: number): number {
    return (Math.imul(id ^ Math.imul(node, 0x85ebca6b), 0x9e3779b1) >>> (32 - this.bits)) * ENTRY;
  }

  private insert(id: number, node: number, value: number): void {
    const pairs = this.pairs;
    const mask = pairs.length - 1;
    let i = this.home(id, node);
    while (pairs[i] !== EMPTY) i = (i + ENTRY) & mask;
    pairs[i] = id;
    pairs[i + 1] = node;
    pairs[i + 2] = value;
  }

  private rehash(bits: number): void {
    const old = this.pairs;
    this.bits = bits;
    this.pairs = new Int32Array(ENTRY << bits).fill(EMPTY);
    for (let i = 0; i < old.length; i += ENTRY) if (old[i] !== EMPTY) this.insert(old[i]!, old[i + 1]!, old[i + 2]!);
  }
}
