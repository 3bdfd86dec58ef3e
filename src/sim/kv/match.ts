import { L1_MASK, L2_MASK, type BlockTable } from './block-table.js';
import type { PrefixMatch } from './types.js';

/**
 * One walk along the prompt. `inGpu` / `inLocal` are the masks of nodes whose
 * L1 / L1-or-L2 prefix is still unbroken; a node drops out at the first block
 * it lacks, and its count is that position. The walk ends at the first block
 * never produced: nothing resident can follow (only admits make blocks
 * resident, and they mark them produced). `blocks` are slots (slots.ts);
 * `produced` is the slots' state, 0 = never produced.
 */
export function matchPrefix(table: BlockTable, produced: Uint8Array, nodeCount: number, blocks: Int32Array, out: MatchArrays): PrefixMatch {
  const gpu = out.gpu;
  const local = out.local;
  gpu.fill(0);
  local.fill(0);
  const data = table.data;
  const size = table.size;
  const all = nodeCount === 31 ? 0x7fffffff : (1 << nodeCount) - 1;
  let inGpu = all;
  let inLocal = all;
  let pool = -1;
  const sources = out.sourcesFor(blocks.length);
  const n = blocks.length;
  let i = 0;
  for (; i < n; i++) {
    const b = blocks[i]!;
    if (b >>> 0 >= size || produced[b] === 0) break;
    const m1 = data[(b << 2) + L1_MASK]!;
    const m2 = data[(b << 2) + L2_MASK]!;
    if (inGpu !== 0 && (inGpu & ~m1) !== 0) {
      setFor(gpu, inGpu & ~m1, i);
      inGpu &= m1;
    }
    const held = m1 | m2;
    if (inLocal !== 0 && (inLocal & ~held) !== 0) {
      setFor(local, inLocal & ~held, i);
      inLocal &= held;
    }
    if (pool < 0) {
      const from = m2 !== 0 ? m2 : m1;
      if (from === 0) pool = i;
      else sources[i] = 31 - Math.clz32(from & -from);
    }
  }
  if (inGpu !== 0) setFor(gpu, inGpu, i);
  if (inLocal !== 0) setFor(local, inLocal, i);
  if (pool < 0) pool = i;
  return { gpu, local, pool, poolSource: sources.subarray(0, pool), ideal: i };
}

/**
 * The arrays a match fills, owned by the directory and reused by every
 * match: results are read once by the router, and fresh typed arrays per
 * request (off the JS heap, so costly to allocate and collect) were a large
 * share of the time on large clusters.
 */
export class MatchArrays {
  readonly gpu: Int32Array;
  readonly local: Int32Array;
  private sources = new Int32Array(512);

  constructor(nodeCount: number) {
    this.gpu = new Int32Array(nodeCount);
    this.local = new Int32Array(nodeCount);
  }

  /** Room for one pool source per prompt block. */
  sourcesFor(n: number): Int32Array {
    if (this.sources.length < n) this.sources = new Int32Array(Math.max(n, this.sources.length * 2));
    return this.sources;
  }
}

/** out[node] = value for each node bit in mask. */
function setFor(out: Int32Array, mask: number, value: number): void {
  while (mask !== 0) {
    const bit = mask & -mask;
    out[31 - Math.clz32(bit)] = value;
    mask ^= bit;
  }
}

