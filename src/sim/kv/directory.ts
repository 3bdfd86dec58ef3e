import { SimulationInvariantError } from '../../common/errors.js';
import { BlockTable, COPY_HINT, L1_MASK, L2_MASK, STAMP } from './block-table.js';
import { Copies } from './copies.js';
import { BLOCK, COUNT, NODE, NOT_RESIDENT, QUEUE, SLAB, SLAB_BITS, keyIndex, slotBase } from './copy-store.js';
import { BranchHoldings, NO_NODE, PHASE_D, PHASE_P, listed, reserve, type Holding, type HoldingLists, type Phase } from './holdings.js';
import { checkBlockIds, checkNode, checkOptions, checkRange, checkTime } from './checks.js';
import { checkDirectory } from './invariants.js';
import { MatchArrays, matchPrefix } from './match.js';
import { SparseMatcher } from './match-sparse.js';
import { HolderRows } from './holder-rows.js';
import { LazyCounts } from './lazy-counts.js';
import { touchCopies } from './prefetch.js';
import { BlockSlots } from './slots.js';
import { Tiers } from './tiers.js';
import { MASK_NODES, type EvictionOrder, type KvDirectoryOptions, type KvStats, type PrefixMatch, type Tier } from './types.js';

/** Above this many comparisons, addProduced finds repeats with stamps instead of scanning the holding. */
const SCAN_LIMIT = 4096;

/**
 * Where every KV block lives (node, tier), who counts it, and what to evict.
 * Callers name blocks by id; inside, a block is its slot (slots.ts), and
 * retire() lets a dead block's slot be reused.
 *
 * Decisions (design section 3 leaves them open):
 * - A reference count belongs to a copy (block, node) and is shared by its L1
 *   and L2 residency. Counts order eviction but never pin: a counted copy can
 *   be evicted from both tiers. Its record then stays, non-resident, with its
 *   count, so the branch keeps its holding, a re-admitted block comes back
 *   counted, and later decrements are exact (never clamped).
 * - Last access is an access sequence number, not the time: `now` must not
 *   decrease between calls, so access order is last-access-time order, with
 *   ties (same `now`) in access order. Every admit accesses both tiers of the
 *   node for each block (L1 written or read, L2 written through), so one
 *   number per copy serves both tiers' orders; each tier still orders only
 *   its own residents. `match` is pure; the peer copy a pool fetch reads is
 *   not refreshed.
 * - An admit first takes the prompt's resident blocks on the node out of the
 *   eviction order, so placing the prompt never evicts the prompt's own
 *   cached blocks, then places blocks last to first, each as the newest: a
 *   missing block is inserted and, if the tier is then over capacity, the
 *   first block in eviction order goes, which may be the one just inserted.
 *   So a prompt larger than a tier keeps its leading blocks (what matching
 *   uses) and drops its deepest ones.
 * - Counts change before eviction can see them: blocks a holding drops are
 *   released before placing, blocks it gains are counted as they are placed
 *   (a prompt block not yet placed is out of the eviction order anyway).
 * - addProduced on another node than the branch's D holding moves the holding
 *   there (a D->D move), like admitDecode would. A moved count on a node
 *   without the block's record is kept lazily, without one (lazy-counts.ts).
 * - clearGpu / clearNode drop every holding on the node (both phases), so its
 *   counts are 0 and a later endBranch does not decrement them again.
 */
export class KvDirectory {
  readonly nodeCount: number;
  eviction: EvictionOrder;
  private readonly table = new BlockTable();
  private readonly copies: Copies;
  /** Past MASK_NODES nodes, residency is found through each block's copy list instead of masks. */
  private readonly sparse: SparseMatcher | null;
  private readonly matchArrays: MatchArrays;
  private readonly tiers: Tiers;
  private readonly holdings = new BranchHoldings();
  /** Block id -> slot; every table here is indexed by slot (slots.ts). */
  private readonly slots = new BlockSlots((group) => this.table.clear(group << SLAB_BITS, SLAB));
  private readonly lazy: LazyCounts;
  private seq = 0;
  private lastNow = -Infinity;
  /** Per prompt position during an admit: the block's copy on the node, or -1. */
  private scratch = new Int32Array(256);
  /** What the prefetch passes read (prefetch.ts), kept so that their loads are not dead code. */
  private sink = 0;

  constructor(options: KvDirectoryOptions) {
    checkOptions(options);
    const { nodeCount, l1CapacityBlocks, l2CapacityBlocks, eviction } = options;
    this.nodeCount = nodeCount;
    this.eviction = eviction;
    const rows = nodeCount <= MASK_NODES ? null : new HolderRows(nodeCount, this.table);
    this.copies = new Copies(this.slots, rows ? this.table : null, rows, nodeCount);
    this.lazy = new LazyCounts(this.slots, this.copies);
    this.sparse = rows ? new SparseMatcher(nodeCount, rows) : null;
    this.matchArrays = new MatchArrays(nodeCount);
    this.tiers = new Tiers(nodeCount, l1CapacityBlocks, l2CapacityBlocks, eviction === 'refcount', this.copies, this.table, rows);
  }

  /** The order of the next evictions (a plan may change it); onGpu false: counted KV is kept longest in host memory only. */
  setEviction(order: EvictionOrder, onGpu = true): void {
    this.tiers.setOrder(order === 'refcount' && onGpu, (this.eviction = order) === 'refcount');
  }
  unreferencedShare = (): number | null => this.tiers.unreferencedShare();

  /** Pure: what the prompt finds cached, per node and pooled. The arrays are reused: valid until the next match. */
  match(blocks: readonly number[]): PrefixMatch {
    const slots = this.slots.lookupAll(blocks);
    if (this.sparse) return this.sparse.match(this.table, this.copies.store, this.slots.state, slots, this.matchArrays);
    return matchPrefix(this.table, this.slots.state, this.nodeCount, slots, this.matchArrays);
  }

  /**
   * The workload will not name ids first .. first + count - 1 in any later
   * call: each one's slot is freed (and later reused) once no copy of it is
   * left. Until then it stays, produced, as before.
   */
  retire(first: number, count: number): void {
    checkRange(first, count);
    this.slots.retire(first, count);
    this.slots.sweep();
  }

  /** The prompt was prefilled on `node`: all its blocks are now in the node's L1 and L2. */
  admitPrefill(node: number, branch: number, blocks: readonly number[], now: number): void {
    this.admit(node, branch, PHASE_P, blocks, now, false);
  }

  /** The request's KV arrived GPU-to-GPU at decode node `node`: in its L1, written through to its L2. */
  admitDecode(node: number, branch: number, blocks: readonly number[], now: number): void {
    this.admit(node, branch, PHASE_D, blocks, now, false);
  }

  /** Decode on `node` produced these blocks, continuing the branch's context: they join its D holding. */
  addProduced(node: number, branch: number, blocks: readonly number[], now: number): void {
    this.admit(node, branch, PHASE_D, blocks, now, true);
  }

  /** Decode produced these blocks and kept no copy (decodeOutput dropped): produced (a match's ideal), resident nowhere. */
  markProduced(blocks: readonly number[]): void {
    checkBlockIds(blocks);
    this.slots.internAll(blocks);
    this.table.ensure(this.slots.highWater - 1);
  }

  /** The branch issues no more requests: -1 on every block it holds, both phases. */
  endBranch(branch: number): void {
    const hs = this.holdings.take(branch);
    if (!hs) return;
    for (const h of hs) this.release(h);
    this.tiers.flush();
    this.slots.sweep();
  }

  /** A decode node switched to prefill: its L1 is emptied and its counts reset to 0. L2 stays. */
  clearGpu(node: number): void {
    checkNode(node, this.nodeCount);
    this.dropHoldings(node);
    this.tiers.clearTier(node, 0);
    this.slots.sweep();
  }

  /** Restart or failure: the node's L1 and L2 are lost, and its counts with them. */
  clearNode(node: number): void {
    checkNode(node, this.nodeCount);
    this.dropHoldings(node);
    this.tiers.clearTier(node, 0);
    this.tiers.clearTier(node, 1);
    this.slots.sweep();
  }

  refCount(block: number, node: number): number {
    const slot = this.slots.slotOf(block);
    const c = this.copies.find(slot, node);
    return c < 0 ? this.lazy.countOn(slot, node) : this.copies.store.i32[(c << 4) + COUNT]!;
  }

  has(id: number, node: number, tier: Tier): boolean {
    const block = this.slots.slotOf(id);
    if (this.sparse) {
      const c = this.copies.find(block, node);
      return c >= 0 && this.copies.store.i32[slotBase(c * 2 + tier - 1) + QUEUE] !== NOT_RESIDENT;
    }
    const mask = this.table.data[(block << 2) + (tier === 1 ? L1_MASK : L2_MASK)]!;
    return (mask & (1 << node)) !== 0;
  }

  /** Blocks resident in the node's tier. */
  used(node: number, tier: Tier): number {
    return this.tiers.used[node * 2 + tier - 1]!;
  }

  capacityOf(node: number, tier: Tier): number {
    return this.tiers.capacity[node * 2 + tier - 1]!;
  }

  /** Whether any earlier admit or addProduced produced this block. */
  everProduced(block: number): boolean {
    return this.slots.state[this.slots.slotOf(block)] !== 0;
  }

  /** Slot use: live slot groups (of 8), slots ever handed out, and the per-slot table's size. For tests of boundedness. */
  slotStats(): { liveGroups: number; highWater: number; tableSize: number; mapCapacity: number } {
    return { liveGroups: this.slots.liveGroupCount, highWater: this.slots.highWater, tableSize: this.table.size, mapCapacity: this.slots.mapCapacity };
  }

  /** Branches currently holding counts. */
  get activeBranches(): number {
    return this.holdings.branchCount;
  }

  stats(): KvStats {
    return { ...this.tiers.counters, copies: this.copies.store.liveCount + this.lazy.live };
  }

  /** Full consistency check (slow; for tests). Throws SimulationInvariantError on the first problem. */
  checkInvariants(): void {
    const problem = checkDirectory({
      table: this.table,
      copies: this.copies,
      tiers: this.tiers,
      holdings: this.holdings,
      slots: this.slots,
      lazy: this.lazy,
    });
    if (problem) throw new SimulationInvariantError(`KV directory: ${problem}`);
  }

  private admit(node: number, branch: number, phase: Phase, ids: readonly number[], now: number, extend: boolean): void {
    checkNode(node, this.nodeCount);
    checkTime(now, this.lastNow);
    checkBlockIds(ids);
    this.lastNow = now;
    const blocks = this.slots.internAll(ids);
    this.table.ensure(this.slots.highWater - 1);
    this.lazy.ensure(this.slots.highWater);
    if (branch === -1) {
      this.detachAll(node, blocks, -1);
      this.placeAll(node, blocks, 0, null);
    } else if (extend) {
      this.detachAll(node, blocks, -1);
      this.extendHolding(this.holdings.of(branch, phase), node, blocks);
    } else {
      this.replaceHolding(this.holdings.of(branch, phase), node, blocks);
    }
    this.slots.sweep();
  }

  /**
   * Take the prompt's resident copies on the node out of the eviction order
   * and remember each copy in `scratch`. Blocks stamped `held` (-1: none)
   * carry their copy in COPY_HINT, so they need no lookup.
   */
  private detachAll(node: number, blocks: Int32Array, held: number): void {
    const n = blocks.length;
    if (this.scratch.length < n) this.scratch = new Int32Array(Math.max(n, this.scratch.length * 2));
    const scratch = this.scratch;
    const copies = this.copies;
    const data = this.table.data;
    for (let i = 0; i < n; i++) {
      const b = blocks[i]!;
      scratch[i] = data[(b << 2) + STAMP] === held ? data[(b << 2) + COPY_HINT]! : copies.find(b, node);
    }
    this.tiers.detachAll(scratch, n);
  }

  /**
   * The holding becomes exactly the prompt on `node`. Stamps: g = in the
   * prompt, g+1 = also already held (keeps its count; its copy goes in
   * COPY_HINT), g+2 = listed in the new holding. Different node: everything
   * held is released and counted afresh as it is placed.
   */
  private replaceHolding(h: Holding, node: number, blocks: Int32Array): void {
    const g = this.table.nextGen();
    const data = this.table.data;
    for (let i = 0; i < blocks.length; i++) data[(blocks[i]! << 2) + STAMP] = g;
    if (h.node === node) {
      for (let k = 0; k < h.size; k++) {
        const s = (h.blocks[k]! << 2) + STAMP;
        const c = h.copies[k]!;
        if (data[s] === g) {
          data[s] = g + 1;
          data[s - STAMP + COPY_HINT] = c >= 0 ? c : this.copies.find(h.blocks[k]!, node);
        } else {
          this.drop(h.blocks[k]!, node, c);
        }
      }
    } else {
      this.release(h);
    }
    this.tiers.flush();
    this.detachAll(node, blocks, g + 1);
    // The old lists are read no more (kept copies are in COPY_HINT): the new
    // holding is built in them, so a branch reallocates only when its prompt
    // outgrows them (a spare swapped between branches of different sizes
    // reallocated on most admits).
    h.size = 0;
    reserve(h, blocks.length);
    this.placeAll(node, blocks, g, h);
    h.node = h.size > 0 ? node : NO_NODE;
  }

  /** The holding gains the produced blocks on `node` (moving there first if it was elsewhere). */
  private extendHolding(h: Holding, node: number, blocks: Int32Array): void {
    if (h.node !== node && h.size > 0) this.moveHolding(h, node);
    const g = this.table.nextGen();
    const data = this.table.data;
    // g = to add, g+2 = already held (placed, not recounted).
    if (blocks.length * h.size > SCAN_LIMIT) {
      for (let k = 0; k < h.size; k++) data[(h.blocks[k]! << 2) + STAMP] = g + 2;
      for (let i = 0; i < blocks.length; i++) {
        const s = (blocks[i]! << 2) + STAMP;
        if (data[s] !== g + 2) data[s] = g;
      }
    } else {
      for (let i = 0; i < blocks.length; i++) data[(blocks[i]! << 2) + STAMP] = listed(h, blocks[i]!) ? g + 2 : g;
    }
    reserve(h, h.size + blocks.length);
    this.placeAll(node, blocks, g, h);
    if (h.size > 0) h.node = node;
  }

  /** A D->D move without access: counts leave the old node's copies for the new node's, lazily where it has no record. */
  private moveHolding(h: Holding, node: number): void {
    this.release(h);
    for (let k = 0; k < h.size; k++) {
      const c = this.lazy.moveTo(h.blocks[k]!, node);
      if (c >= 0) this.inc(c);
      h.copies[k] = c;
    }
    h.node = node;
    this.tiers.flush();
  }

  /**
   * Place every prompt block in the node's L1 and L2, last block first, each
   * as the newest. With a holding to build (`out`, with room reserved),
   * blocks stamped g gain a count as they are placed and blocks stamped g or
   * g+1 are listed once (then stamped g+2).
   */
  private placeAll(node: number, blocks: Int32Array, g: number, out: HoldingLists | null): void {
    const scratch = this.scratch;
    const data = this.table.data;
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      let c = scratch[i]!;
      // Fast path, the common case: a block the holding keeps. Its copy is counted,
      // so never freed (a lazy count gets its record now), and it was produced long ago.
      if (out && data[(b << 2) + STAMP] === g + 1) {
        if (c < 0) c = this.lazy.recordOf(b, node);
        data[(b << 2) + STAMP] = g + 2;
        out.blocks[out.size] = b;
        out.copies[out.size++] = c;
        this.copies.store.f64[keyIndex(c)] = ++this.seq;
        this.tiers.placeCopy(c, node);
        continue;
      }
      // The remembered copy may have been freed (and its record reused) since.
      const i32 = this.copies.store.i32;
      if (c < 0 || i32[(c << 4) + BLOCK] !== b || i32[(c << 4) + NODE] !== node) c = this.lazy.recordOf(b, node);
      if (out) {
        const s = (b << 2) + STAMP;
        const st = data[s]!;
        if (st === g) {
          this.inc(c);
          data[s] = g + 2;
          out.blocks[out.size] = b;
          out.copies[out.size++] = c;
        }
      }
      this.copies.store.f64[keyIndex(c)] = ++this.seq;
      this.tiers.placeCopy(c, node);
      // Only a tier too small for the prompt leaves a fresh, uncounted copy nowhere.
      if (this.copies.store.i32[(c << 4) + COUNT] === 0 && this.tiers.isNowhere(c)) this.copies.free(c);
    }
  }

  /** -1 on every copy of the holding, oldest placed first (so released slots requeue in key order). */
  private release(h: Holding): void {
    this.sink ^= touchCopies(this.copies.store.i32, h.copies, h.blocks, this.lazy.data, h.size);
    for (let k = 0; k < h.size; k++) this.drop(h.blocks[k]!, h.node, h.copies[k]!);
  }

  /** -1 on a holding's (b, node) through its copy c; -1: counted lazily, or by a record made since. */
  private drop(b: number, node: number, c: number): void {
    if (c >= 0) this.dec(c);
    else if (!this.lazy.drop(b, node)) this.dec(this.copies.find(b, node));
  }

  /** Every holding on the node is released and emptied. */
  private dropHoldings(node: number): void {
    for (const h of this.holdings.onNode(node)) {
      this.release(h);
      h.node = NO_NODE;
      h.size = 0;
    }
    this.tiers.flush();
  }

  private inc(c: number): void {
    if (this.copies.store.i32[(c << 4) + COUNT]!++ === 0) this.tiers.classChanged(c);
  }

  private dec(c: number): void {
    const i32 = this.copies.store.i32;
    const f = (c << 4) + COUNT;
    if (c < 0 || i32[f]! <= 0) throw new SimulationInvariantError(`KV directory: decrement of uncounted copy ${c}`);
    if (--i32[f]! > 0) return;
    if (this.tiers.isNowhere(c)) this.copies.free(c);
    else this.tiers.classChanged(c);
  }
}
