import type { GrowableBitmap } from './bitmap.js';
import { COPY_LIST, type BlockTable } from './block-table.js';
import { BLOCK_NEXT, NODE, NOT_RESIDENT, type CopyStore } from './copy-store.js';
import type { PrefixMatch } from './types.js';

/**
 * Prefix matching past 31 nodes, where residency has no per-block mask: the
 * same walk as matchPrefix (match.ts), but each block's nodes come from its
 * list of copies. The nodes whose L1 (or L1-or-L2) prefix is unbroken are
 * kept in lists; at each block they are checked against the block's copies,
 * so a block costs its copies plus the unbroken nodes, not the node count.
 * Once no node is unbroken and the pooled prefix has ended, only `ideal` is
 * left, which needs the produced bitmap alone.
 */
export class SparseMatcher {
  /** Per node: the block tick at which it was last seen holding the block in L1 / in L1 or L2. */
  private readonly seenGpu: Int32Array;
  private readonly seenLocal: Int32Array;
  private tick = 0;
  private aliveGpu: Int32Array;
  private aliveLocal: Int32Array;

  constructor(readonly nodeCount: number) {
    this.seenGpu = new Int32Array(nodeCount);
    this.seenLocal = new Int32Array(nodeCount);
    this.aliveGpu = new Int32Array(nodeCount);
    this.aliveLocal = new Int32Array(nodeCount);
  }

  match(table: BlockTable, store: CopyStore, produced: GrowableBitmap, blocks: readonly number[]): PrefixMatch {
    const nodeCount = this.nodeCount;
    const gpu = new Int32Array(nodeCount);
    const local = new Int32Array(nodeCount);
    const sources = new Int32Array(blocks.length);
    const data = table.data;
    const size = table.size;
    const i32 = store.i32;
    const { seenGpu, seenLocal, aliveGpu, aliveLocal } = this;
    let nGpu = 0;
    let nLocal = 0;
    let pool = -1;
    const n = blocks.length;
    let i = 0;
    for (; i < n; i++) {
      const b = blocks[i]!;
      if (b >>> 0 >= size || !produced.has(b)) break;
      if (i > 0 && nGpu === 0 && nLocal === 0 && pool >= 0) continue;
      if (this.tick === 0x7fffffff) this.resetTicks();
      const t = ++this.tick;
      let minL1 = nodeCount;
      let minL2 = nodeCount;
      for (let c = data[(b << 2) + COPY_LIST]! - 1; c >= 0; c = i32[(c << 4) + BLOCK_NEXT]!) {
        const o = c << 4;
        const node = i32[o + NODE]!;
        // Slot QUEUE fields (int32 offsets 4 and 8): -1 is not resident.
        const r1 = i32[o + 4] !== NOT_RESIDENT;
        const r2 = i32[o + 8] !== NOT_RESIDENT;
        if (r1) {
          if (i === 0) aliveGpu[nGpu++] = node;
          seenGpu[node] = t;
          if (node < minL1) minL1 = node;
        }
        if (r1 || r2) {
          if (i === 0) aliveLocal[nLocal++] = node;
          seenLocal[node] = t;
        }
        if (r2 && node < minL2) minL2 = node;
      }
      if (i > 0) {
        nGpu = keepSeen(aliveGpu, nGpu, seenGpu, t, gpu, i);
        nLocal = keepSeen(aliveLocal, nLocal, seenLocal, t, local, i);
      }
      if (pool < 0) {
        const from = minL2 < nodeCount ? minL2 : minL1;
        if (from === nodeCount) pool = i;
        else sources[i] = from;
      }
    }
    for (let k = 0; k < nGpu; k++) gpu[aliveGpu[k]!] = i;
    for (let k = 0; k < nLocal; k++) local[aliveLocal[k]!] = i;
    if (pool < 0) pool = i;
    return { gpu, local, pool, poolSource: sources.slice(0, pool), ideal: i };
  }

  private resetTicks(): void {
    this.seenGpu.fill(0);
    this.seenLocal.fill(0);
    this.tick = 0;
  }
}

/** Keep the alive nodes seen at tick t; the others' prefix ends at position i. Returns the new count. */
function keepSeen(alive: Int32Array, n: number, seen: Int32Array, t: number, out: Int32Array, i: number): number {
  let kept = 0;
  for (let k = 0; k < n; k++) {
    const node = alive[k]!;
    if (seen[node] === t) alive[kept++] = node;
    else out[node] = i;
  }
  return kept;
}
