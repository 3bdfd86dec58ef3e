import { COPY_LIST, L1_MASK, L2_MASK, type BlockTable } from './block-table.js';
import type { Copies } from './copies.js';
import { BLOCK, BLOCK_NEXT, BLOCK_PREV, COUNT, NODE, QUEUE, SLAB, SLAB_BITS, slotBase, type CopyStore } from './copy-store.js';
import type { BranchHoldings } from './holdings.js';
import { OVERFLOW, SMALL_STRIDE, type HolderRows } from './holder-rows.js';
import type { LazyCounts } from './lazy-counts.js';
import type { BlockSlots } from './slots.js';
import type { Tiers } from './tiers.js';

/** The directory's internals, as the consistency check sees them. */
export interface DirectoryParts {
  table: BlockTable;
  copies: Copies;
  tiers: Tiers;
  holdings: BranchHoldings;
  slots: BlockSlots;
  lazy: LazyCounts;
}

/**
 * Recomputes everything derivable from scratch and compares: queue structure,
 * use per tier against capacity and queue sizes, residency masks, the copy
 * index, the class of each queued slot, every count (record or lazy)
 * against the holdings, and the slot map (live lanes, copies per slot,
 * freed groups left clean).
 * Returns the first problem found, or null. O(everything): tests only.
 */
export function checkDirectory(d: DirectoryParts): string | null {
  const { table, tiers } = d;
  const { store, index } = d.copies;
  const i32 = store.i32;
  const nodes = tiers.nodeCount;
  for (let q = 0; q < nodes * 4; q++) {
    const problem = tiers.queues.check(q);
    if (problem) return problem;
  }
  for (let nt = 0; nt < nodes * 2; nt++) {
    const size = tiers.queues.size(nt * 2) + tiers.queues.size(nt * 2 + 1);
    const where = `node ${nt >> 1} tier ${(nt & 1) + 1}`;
    if (tiers.used[nt] !== size) return `${where}: used ${tiers.used[nt]} but ${size} queued`;
    if (size > tiers.capacity[nt]!) return `${where}: ${size} blocks over capacity ${tiers.capacity[nt]}`;
    if (!tiers.countedLast(nt & 1) && tiers.queues.size(nt * 2 + 1) !== 0) return `${where}: counted queue used under lru`;
  }

  const expected = new Map<string, number>();
  for (const h of d.holdings.entries()) {
    if (h.copies.length !== h.blocks.length) return `branch ${h.branch}: holding lists differ in length`;
    for (let k = 0; k < h.blocks.length; k++) {
      const b = h.blocks[k]!;
      const c = h.copies[k]!;
      // -1: counted lazily, or by a record made since (lazy-counts.ts).
      const lazyOrMade = c === -1 && (d.lazy.countOn(b, h.node) > 0 || d.copies.find(b, h.node) >= 0);
      if (!lazyOrMade && (c < 0 || !store.isLive(c) || i32[(c << 4) + BLOCK] !== b || i32[(c << 4) + NODE] !== h.node)) {
        return `branch ${h.branch}: holds block ${b} on node ${h.node} through a wrong copy record`;
      }
      const key = `${b}@${h.node}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
  }
  for (const h of d.holdings.entries()) {
    if (new Set(h.blocks).size !== h.blocks.length) return `branch ${h.branch}: a block listed twice in one holding`;
  }

  const masks = new Map<number, [number, number]>();
  const slabs = new Set<number>();
  let live = 0;
  for (let c = 0; c < store.highWater; c++) {
    if (!store.isLive(c)) continue;
    live++;
    const o = c << 4;
    const b = i32[o + BLOCK]!;
    const node = i32[o + NODE]!;
    const count = i32[o + COUNT]!;
    const where = `block ${b} node ${node}`;
    if (count < 0) return `${where}: negative count ${count}`;
    const want = expected.get(`${b}@${node}`) ?? 0;
    if (count !== want) return `${where}: count ${count} but ${want} holdings`;
    expected.delete(`${b}@${node}`);
    let resident = false;
    for (let t = 0; t < 2; t++) {
      const q = i32[slotBase(c * 2 + t) + QUEUE]!;
      if (q === -1) continue;
      if (q < 0) return `${where} tier ${t + 1}: left detached (${q})`;
      resident = true;
      if (d.slots.state[b] === 0) return `${where}: resident but never produced`;
      const cls = tiers.countedLast(t) && count > 0 ? 1 : 0;
      if (q !== (node * 2 + t) * 2 + cls) return `${where} tier ${t + 1}: in queue ${q}`;
      if (tiers.masked) {
        const m = masks.get(b) ?? [0, 0];
        m[t]! |= 1 << node;
        masks.set(b, m);
      }
    }
    if (!resident && count === 0) return `${where}: record neither resident nor counted`;
    if (d.lazy.countOn(b, node) !== 0) return `${where}: counted lazily beside its record`;
    if (c !== ((index.get(b >>> SLAB_BITS, node) << SLAB_BITS) | (b & (SLAB - 1)))) return `${where}: copy index points elsewhere`;
    slabs.add(c >> SLAB_BITS);
  }
  if (live !== store.liveCount) return `live copies ${live} != ${store.liveCount}`;
  const perSlot = new Map<number, number>();
  let lazy = 0;
  for (let b = 0; b * 2 < d.lazy.data.length; b++) {
    const node = d.lazy.data[b * 2]! - 1;
    if (node < 0) continue;
    lazy++;
    perSlot.set(b, 1);
    const count = d.lazy.countOn(b, node);
    const want = expected.get(`${b}@${node}`) ?? 0;
    if (count <= 0 || count !== want) return `block ${b} node ${node}: lazy count ${count} but ${want} holdings`;
    expected.delete(`${b}@${node}`);
  }
  if (lazy !== d.lazy.live) return `lazy counts ${lazy} != ${d.lazy.live}`;
  // Every slab with a live copy is indexed under that copy's key, so equal sizes mean nothing stale is indexed.
  if (index.size !== slabs.size) return `copy index holds ${index.size} entries for ${slabs.size} slabs in use`;
  for (const [key, n] of expected) return `holding ${key} (x${n}) has no copy record`;
  for (let c = 0; c < store.highWater; c++) if (store.isLive(c)) perSlot.set(i32[(c << 4) + BLOCK]!, (perSlot.get(i32[(c << 4) + BLOCK]!) ?? 0) + 1);
  const slotProblem = d.slots.check((slot) => perSlot.get(slot) ?? 0);
  if (slotProblem) return slotProblem;

  if (!tiers.masked) return checkCopyLists(table, store, live) ?? checkRows(table, store, tiers.rows!);
  for (let b = 0; b < table.size; b++) {
    const m = masks.get(b) ?? [0, 0];
    if (table.data[(b << 2) + L1_MASK] !== m[0] || table.data[(b << 2) + L2_MASK] !== m[1]) return `block ${b}: residency masks wrong`;
  }
  return null;
}

/** Without masks: each block's copy list links exactly its live copies, both ways. */
function checkCopyLists(table: BlockTable, store: CopyStore, live: number): string | null {
  const i32 = store.i32;
  let listed = 0;
  for (let b = 0; b < table.size; b++) {
    let prev = -1;
    for (let c = table.data[(b << 2) + COPY_LIST]! - 1; c >= 0; c = i32[(c << 4) + BLOCK_NEXT]!) {
      if (!store.isLive(c) || i32[(c << 4) + BLOCK] !== b) return `block ${b}: copy list holds copy ${c} of another block or a dead one`;
      if (i32[(c << 4) + BLOCK_PREV] !== prev) return `block ${b}: copy list back link wrong at ${c}`;
      if (++listed > live) return `block ${b}: copy list longer than the live copies (a cycle?)`;
      prev = c;
    }
  }
  return listed === live ? null : `copy lists hold ${listed} copies, ${live} are live`;
}

/** Blocks with a row of node bits: the bits are exactly their resident copies' nodes, per tier. */
function checkRows(table: BlockTable, store: CopyStore, rows: HolderRows): string | null {
  const i32 = store.i32;
  let withRow = 0;
  for (let b = 0; b < table.size; b++) {
    const row = rows.rowOf(b);
    if (row < 0) continue;
    withRow++;
    const want = new Int32Array(rows.words * 2);
    for (let c = table.data[(b << 2) + COPY_LIST]! - 1; c >= 0; c = i32[(c << 4) + BLOCK_NEXT]!) {
      const node = i32[(c << 4) + NODE]!;
      for (let t = 0; t < 2; t++) if (i32[slotBase(c * 2 + t) + QUEUE] !== -1) want[t * rows.words + (node >>> 5)]! |= 1 << (node & 31);
    }
    for (let w = 0; w < want.length; w++) if (rows.bits[row + w] !== want[w]) return `block ${b}: node bit row wrong at word ${w}`;
  }
  for (let b = 0; b * SMALL_STRIDE < rows.small.length; b++) {
    const at = b * SMALL_STRIDE;
    const n = rows.small[at]!;
    if (n === OVERFLOW) continue;
    const want: number[] = [];
    for (let c = b < table.size ? table.data[(b << 2) + COPY_LIST]! - 1 : -1; c >= 0; c = i32[(c << 4) + BLOCK_NEXT]!) {
      let bits = 0;
      for (let t = 0; t < 2; t++) if (i32[slotBase(c * 2 + t) + QUEUE] !== -1) bits |= 1 << t;
      if (bits) want.push((i32[(c << 4) + NODE]! << 2) | bits);
    }
    const got = Array.from(rows.small.subarray(at + 1, at + 1 + n));
    if (n < 0 || n > SMALL_STRIDE - 1 || want.sort().join() !== got.sort().join()) return `block ${b}: small-holder entries [${got}] but resident [${want}]`;
  }
  return withRow === rows.liveRows ? null : `${rows.liveRows} rows in use, ${withRow} blocks have one`;
}
