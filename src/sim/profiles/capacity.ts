import type { ModelProfile } from './model.js';
import type { NodeKind } from './node-kind.js';

/** The simulator's KV block size: contexts are chains of 512-token blocks. */
export const DEFAULT_BLOCK_TOKENS = 512;

export interface KvCapacity {
  blockTokens: number;
  /** L1: tokens of KV the node's GPUs hold. */
  gpuTokens: number;
  /** L2: tokens of KV the node's host memory holds. */
  hostTokens: number;
  gpuBlocks: number;
  hostBlocks: number;
}

/** KV capacity of one node of `kind` serving `model`; only whole tokens and whole blocks count. */
export function kvCapacity(kind: NodeKind, model: ModelProfile, blockTokens = DEFAULT_BLOCK_TOKENS): KvCapacity {
  if (!Number.isInteger(blockTokens) || blockTokens <= 0) throw new RangeError(`blockTokens must be a positive integer, got ${blockTokens}`);
  const gpuTokens = Math.floor(kind.memory.gpuKvBytes / model.shape.kvBytesPerToken);
  const hostTokens = Math.floor(kind.memory.hostKvBytes / model.shape.kvBytesPerToken);
  return {
    blockTokens,
    gpuTokens,
    hostTokens,
    gpuBlocks: Math.floor(gpuTokens / blockTokens),
    hostBlocks: Math.floor(hostTokens / blockTokens),
  };
}
