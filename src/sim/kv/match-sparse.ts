import { COPY_LIST, type BlockTable } from './block-table.js';
import { BLOCK_NEXT, NODE, NOT_RESIDENT, type CopyStore } from './copy-store.js';
import { OVERFLOW, SMALL_STRIDE, type HolderRows } from './holder-rows.js';
import { NodeSet, SavedSet } from './node-set.js';
import type { MatchArrays } from './match.js';
import { SavedCounts, TierCounts, type SparseCounts } from './match-result.js';
import type { PrefixMatch } from './types.js';

/** A block listed on more nodes than this gets a row of node bits (holder-rows.ts): past a few copies, a word per 32 nodes beats a step per copy. */
const ROW_AT = 16;

/**
 * Prefix matching past 31 nodes, where residency has no per-block mask: the
 * same walk as matchPrefix (match.ts), over the nodes whose L1 (`gpu`) and
 * L1-or-L2 (`local`) prefix is still unbroken. Each block's nodes come from
 * its row of node bits if it has one (blocks on many nodes), else from its
 * copy list (a few nodes). The unbroken sets (node-set.ts) are bit rows
 * while large, lists once small, so a block costs a word per 32 nodes or
 * its few copies, never a step per node. Once no node is unbroken and the
 * pooled prefix has ended, only `ideal` is left: the slots' produced state alone.
 */
export class SparseMatcher {
  readonly gpuSet: NodeSet;
  readonly localSet: NodeSet;
  /** Scratch per block: its nodes with a resident L1 copy, and with L1 or L2. */
  private readonly holdGpu: Int32Array;
  private readonly holdLocal: Int32Array;
  /** The last match's counts per tier, written per node only when a router asks for the arrays. */
  readonly counts: SparseCounts;
  /**
   * The state after the last full walk's leading run of blocks that had rows
   * (the shared system prompt): most prompts start with the same blocks, and
   * the rows rarely change between two matches (holder-rows.ts `epoch`), so
   * the next match with those leading blocks starts from this state instead
   * of walking a word per 32 nodes per block again, and takes its node bits
   * and levels by reference (node-set.ts load, match-result.ts levelRef).
   * At bench:scale's 1,024 nodes, 96 % of matches (35,010 of 36,608) start
   * from it, and 96 % of the predicted-TTFT class readings reuse their
   * counts per word (match-classes.ts).
   */
  private readonly lead: Lead;

  constructor(
    readonly nodeCount: number,
    private readonly rows: HolderRows,
  ) {
    this.gpuSet = new NodeSet(nodeCount);
    this.localSet = new NodeSet(nodeCount);
    this.holdGpu = new Int32Array(ROW_AT + 1);
    this.holdLocal = new Int32Array(ROW_AT + 1);
    this.counts = { gpu: new TierCounts(nodeCount), local: new TierCounts(nodeCount) };
    this.lead = new Lead(nodeCount);
  }

  match(table: BlockTable, store: CopyStore, produced: Uint8Array, blocks: Int32Array, out: MatchArrays): PrefixMatch {
    const nodeCount = this.nodeCount;
    const { gpu, local } = this.counts;
    gpu.reset();
    local.reset();
    const sources = out.sourcesFor(blocks.length);
    const { gpuSet, localSet, holdGpu, holdLocal, rows } = this;
    const W = rows.words;
    const size = table.size;
    let pool = -1;
    const n = blocks.length;
    let i = 0;
    const lead = this.lead;
    // Open while every block so far had a row when reached: the walk up to here depends on rows alone.
    let leading = true;
    if (lead.k > 0 && lead.epoch === rows.epoch && lead.matches(blocks, produced, size)) {
      gpuSet.load(lead.gpuSet);
      localSet.load(lead.localSet);
      gpu.load(lead.gpu);
      local.load(lead.local);
      pool = lead.pool;
      sources.set(lead.sources.subarray(0, lead.k));
      i = lead.k;
      leading = false;
    }
    for (; i < n; i++) {
      const b = blocks[i]!;
      if (leading && (b >>> 0 >= size || produced[b] === 0 || rows.rowOf(b) < 0 || (i > 0 && gpuSet.count === 0 && localSet.count === 0 && pool >= 0))) {
        leading = false;
        if (i > 0) lead.save(this, blocks, i, pool, sources, rows.epoch);
      }
      if (b >>> 0 >= size || produced[b] === 0) break;
      if (i > 0 && gpuSet.count === 0 && localSet.count === 0 && pool >= 0) continue;
      let row = rows.rowOf(b);
      let nGpu = 0;
      let nLocal = 0;
      let minL1 = nodeCount;
      let minL2 = nodeCount;
      const small = rows.small;
      const at = b * SMALL_STRIDE;
      const few = row < 0 && at < small.length ? small[at]! : OVERFLOW;
      if (few !== OVERFLOW) {
        // A few resident holders, listed in the block's own entries.
        for (let k = 1; k <= few; k++) {
          const e = small[at + k]!;
          const node = e >> 2;
          if ((e & 1) !== 0) {
            holdGpu[nGpu++] = node;
            if (node < minL1) minL1 = node;
          }
          holdLocal[nLocal++] = node;
          if ((e & 2) !== 0 && node < minL2) minL2 = node;
        }
      } else if (row < 0) {
        const i32 = store.i32;
        for (let c = table.data[(b << 2) + COPY_LIST]! - 1; c >= 0; c = i32[(c << 4) + BLOCK_NEXT]!) {
          const o = c << 4;
          const node = i32[o + NODE]!;
          // Slot QUEUE fields (int32 offsets 4 and 8): -1 is not resident.
          const r1 = i32[o + 4] !== NOT_RESIDENT;
          const r2 = i32[o + 8] !== NOT_RESIDENT;
          if (!r1 && !r2) continue;
          if (nLocal === ROW_AT) {
            row = this.buildRow(b, table, store);
            break;
          }
          if (r1) {
            holdGpu[nGpu++] = node;
            if (node < minL1) minL1 = node;
          }
          holdLocal[nLocal++] = node;
          if (r2 && node < minL2) minL2 = node;
        }
      }
      const bits = rows.bits;
      if (row >= 0) {
        if (i === 0) {
          gpuSet.startFromRow(bits, row, W, false);
          localSet.startFromRow(bits, row, W, true);
        } else {
          gpuSet.intersectRow(bits, row, W, false, gpu, i);
          localSet.intersectRow(bits, row, W, true, local, i);
        }
        if (pool < 0) {
          minL2 = firstBit(bits, row + W, W, nodeCount);
          if (minL2 === nodeCount) minL1 = firstBit(bits, row, W, nodeCount);
        }
      } else if (i === 0) {
        gpuSet.startFromList(holdGpu, nGpu);
        localSet.startFromList(holdLocal, nLocal);
      } else {
        gpuSet.intersectList(holdGpu, nGpu, gpu, i);
        localSet.intersectList(holdLocal, nLocal, local, i);
      }
      if (pool < 0) {
        const from = minL2 < nodeCount ? minL2 : minL1;
        if (from === nodeCount) pool = i;
        else sources[i] = from;
      }
    }
    if (leading && i > 0) lead.save(this, blocks, i, pool, sources, rows.epoch);
    gpuSet.finish(gpu, i);
    localSet.finish(local, i);
    if (pool < 0) pool = i;
    return new SparseMatch(this.counts, out, pool, sources.subarray(0, pool), i);
  }

  /** Give the block a row, filled from its copy list; the tiers keep it current from now on. */
  private buildRow(b: number, table: BlockTable, store: CopyStore): number {
    const row = this.rows.create(b);
    const i32 = store.i32;
    for (let c = table.data[(b << 2) + COPY_LIST]! - 1; c >= 0; c = i32[(c << 4) + BLOCK_NEXT]!) {
      const o = c << 4;
      const node = i32[o + NODE]!;
      if (i32[o + 4] !== NOT_RESIDENT) this.rows.set(b, node, 0, true);
      if (i32[o + 8] !== NOT_RESIDENT) this.rows.set(b, node, 1, true);
    }
    return row;
  }
}

/** Lowest set bit's node in the W words at `from`, or `none`. */
function firstBit(bits: Int32Array, from: number, W: number, none: number): number {
  for (let w = 0; w < W; w++) {
    const x = bits[from + w]!;
    if (x !== 0) return (w << 5) + 31 - Math.clz32(x & -x);
  }
  return none;
}

/**
 * A sparse match: the per-node arrays are filled (a write per node) only
 * when first read; the predicted-TTFT router reads `sparse` instead
 * (prefill-indexed.ts). A new object per match, as routing/prefix.ts's
 * reuse of costs keys on it.
 */
class SparseMatch implements PrefixMatch {
  private filled = false;

  constructor(
    readonly sparse: SparseCounts,
    private readonly arrays: MatchArrays,
    readonly pool: number,
    readonly poolSource: Int32Array,
    readonly ideal: number,
  ) {}

  get gpu(): Int32Array {
    this.fill();
    return this.arrays.gpu;
  }

  get local(): Int32Array {
    this.fill();
    return this.arrays.local;
  }

  private fill(): void {
    if (this.filled) return;
    this.filled = true;
    this.sparse.gpu.fill(this.arrays.gpu);
    this.sparse.local.fill(this.arrays.local);
  }
}

/** A match's state after its first k blocks, each of which had a row (SparseMatcher.lead). */
class Lead {
  k = 0;
  epoch = -1;
  blocks = new Int32Array(64);
  pool = -1;
  sources = new Int32Array(64);
  readonly gpuSet: SavedSet;
  readonly localSet: SavedSet;
  readonly gpu = new SavedCounts();
  readonly local = new SavedCounts();

  constructor(nodeCount: number) {
    this.gpuSet = new SavedSet(nodeCount);
    this.localSet = new SavedSet(nodeCount);
  }

  /** Whether the prompt starts with the saved blocks, all still produced. */
  matches(blocks: Int32Array, produced: Uint8Array, size: number): boolean {
    const k = this.k;
    if (blocks.length < k) return false;
    for (let i = 0; i < k; i++) {
      const b = blocks[i]!;
      if (b !== this.blocks[i] || b >>> 0 >= size || produced[b] === 0) return false;
    }
    return true;
  }

  save(m: SparseMatcher, blocks: Int32Array, k: number, pool: number, sources: Int32Array, epoch: number): void {
    if (this.blocks.length < k) {
      this.blocks = new Int32Array(Math.max(k, this.blocks.length * 2));
      this.sources = new Int32Array(this.blocks.length);
    }
    this.blocks.set(blocks.subarray(0, k));
    this.sources.set(sources.subarray(0, k));
    this.k = k;
    this.epoch = epoch;
    this.pool = pool;
    m.gpuSet.save(this.gpuSet);
    m.localSet.save(this.localSet);
    m.counts.gpu.save(this.gpu);
    m.counts.local.save(this.local);
  }
}
