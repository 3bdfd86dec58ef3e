/** Public types of the KV directory (design section 3, "KV tiers", "KV directory", "Eviction"). */
import type { SparseCounts } from './match-result.js';


/** `refcount`: count-zero copies first, then oldest last access. `lru`: last access only. */
export type EvictionOrder = 'refcount' | 'lru';

/** 1 = GPU memory (L1), 2 = host memory (L2, the pooled tier). */
export type Tier = 1 | 2;

/**
 * Up to this many nodes, residency is a 32-bit mask per block and tier, one
 * bit per node (bit 31 is the sign); above it, each block lists its copies.
 */
export const MASK_NODES = 31;

/** Node ids index typed arrays; this bounds their size, not any packing. */
export const MAX_NODES = 4096;

/**
 * Block ids are any safe integer (ids.ts): they are mapped to slots of live
 * blocks (slots.ts), so neither their size nor how many a run mints bounds
 * memory. The trace format's own cap is workload/blocks.ts MAX_BLOCK_ID.
 */
export { MAX_DIRECTORY_BLOCK_ID } from './ids.js';

export interface KvDirectoryOptions {
  nodeCount: number;
  /** Per node, GPU (L1) capacity in blocks. */
  l1CapacityBlocks: readonly number[];
  /** Per node, host-memory (L2) capacity in blocks. */
  l2CapacityBlocks: readonly number[];
  eviction: EvictionOrder;
}

/**
 * What a request's prompt finds cached. All counts are leading (contiguous
 * from block 0) block counts. The arrays belong to the directory and are
 * overwritten by its next match: copy them to keep them.
 */
export interface PrefixMatch {
  /** Per node: leading blocks in that node's L1. */
  gpu: Int32Array;
  /** Per node: leading blocks each in that node's L1 or L2. */
  local: Int32Array;
  /** Leading blocks each present in some node's L1 or L2 (the pooled prefix). */
  pool: number;
  /**
   * For each of the `pool` leading blocks, the node to fetch it from: the
   * lowest node id holding it in L2 (host memory is the pooled tier), or, if
   * no node has it in L2, the lowest node id holding it in L1.
   */
  poolSource: Int32Array;
  /** Leading blocks that any earlier admit or addProduced ever produced, even if evicted since. */
  ideal: number;
  /**
   * Past 31 nodes (match-sparse.ts): the same counts as `gpu` and `local`,
   * as a few levels and per-node exceptions (match-result.ts), readable
   * without a pass over the nodes; reading `gpu` or `local` writes the arrays.
   */
  sparse?: SparseCounts;
}

export interface KvStats {
  l1Inserts: number;
  l2Inserts: number;
  l1Evictions: number;
  l2Evictions: number;
  /** Evictions of copies that active branches still counted (capacity too small for the live contexts). */
  l1HeldEvictions: number;
  l2HeldEvictions: number;
  /** Copies dropped by clearGpu / clearNode (not counted as evictions). */
  l1Cleared: number;
  l2Cleared: number;
  /** Live copy records: resident in some tier, or counted by a branch while evicted. */
  copies: number;
}
