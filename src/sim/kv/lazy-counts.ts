import type { Copies } from './copies.js';
import { COUNT } from './copy-store.js';
import type { BlockSlots } from './slots.js';

/**
 * Counts on copies that are resident nowhere, kept without a copy record.
 *
 * Why: a D->D move (addProduced on another decode node) counts every block
 * of the branch's D holding on the new node, and in bench:sim 80.6 % of them
 * are not resident there (docs/benchmarks.md, "KV directory census"). Each
 * got a copy record, resident nowhere and counted once, freed again at the
 * next move: a 64-byte record made and freed per block per move. Here such
 * a count is two int32s per block slot instead.
 *
 * A lazy count is exactly the record it replaces, minus the record: it
 * counts the holdings of (block, node) as a record's count would, it is one
 * of the slot's copies (slots.ts: the slot lives while it has copies), and
 * stats() counts it as a copy. One node per slot; a move finding the slot's
 * lazy count on another node makes a record as before. It exists only while
 * (block, node) has no record: when the block is placed on the node (an
 * admit), the record made then takes the count over (take()), so the copy
 * comes back counted, in the counted class, as a counted record resident
 * nowhere did. Holdings list such a copy as -1; a -1 whose (block, node) has
 * a record by then (taken over since) is found through the copy index.
 */
export class LazyCounts {
  /** Per slot: node + 1 of its lazy count (0: none), then the count. */
  data = new Int32Array(2048);
  /** Slots with a lazy count. */
  live = 0;

  constructor(
    private readonly slots: BlockSlots,
    private readonly copies: Copies,
  ) {}

  /** Room for slots below `slots`; grows by doubling, as the block table (block-table.ts). */
  ensure(slots: number): void {
    if (slots * 2 <= this.data.length) return;
    const next = new Int32Array(Math.max(slots * 2, this.data.length * 2));
    next.set(this.data);
    this.data = next;
  }

  /** The lazy count of (slot, node), 0 if none. */
  countOn(slot: number, node: number): number {
    const o = slot << 1;
    return o < this.data.length && this.data[o] === node + 1 ? this.data[o + 1]! : 0;
  }

  /**
   * A holding moving to `node` counts the block there: its record if it has
   * one (returned, for the caller to count), else lazily (-1), else, with
   * the slot's lazy count on another node, a new record (returned).
   */
  moveTo(slot: number, node: number): number {
    const c = this.copies.find(slot, node);
    if (c >= 0 || this.add(slot, node)) return c;
    return this.copies.create(slot, node);
  }

  /** The record of (slot, node), made if missing; a lazy count there passes to it. May reallocate store arrays. */
  recordOf(slot: number, node: number): number {
    const c = this.copies.find(slot, node);
    if (c >= 0) return c;
    const n = this.take(slot, node);
    const made = this.copies.create(slot, node, n > 0);
    this.copies.store.i32[(made << 4) + COUNT] = n;
    return made;
  }

  /** +1 on (slot, node), which has no record; false (nothing done) if the slot's lazy count is on another node. */
  private add(slot: number, node: number): boolean {
    const d = this.data;
    const o = slot << 1;
    const n = d[o]!;
    if (n === node + 1) {
      d[o + 1]!++;
      return true;
    }
    if (n !== 0) return false;
    d[o] = node + 1;
    d[o + 1] = 1;
    this.live++;
    this.slots.copyAdded(slot);
    return true;
  }

  /** -1 on (slot, node) if it is counted here; false (nothing done) if not (its count is on a record). */
  drop(slot: number, node: number): boolean {
    const d = this.data;
    const o = slot << 1;
    if (d[o] !== node + 1) return false;
    if (--d[o + 1]! === 0) {
      d[o] = 0;
      this.live--;
      this.slots.copyRemoved(slot);
    }
    return true;
  }

  /** (slot, node) is getting a record: its lazy count (0: none) ends here, for the record to carry. The slot keeps the copy. */
  private take(slot: number, node: number): number {
    const d = this.data;
    const o = slot << 1;
    if (d[o] !== node + 1) return 0;
    const n = d[o + 1]!;
    d[o] = 0;
    d[o + 1] = 0;
    this.live--;
    return n;
  }
}
