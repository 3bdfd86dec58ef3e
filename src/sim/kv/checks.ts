import { badBlockId, isBlockId } from './ids.js';
import { MAX_NODES, type KvDirectoryOptions } from './types.js';

/** Argument checks of the KV directory's public calls: RangeError naming the argument. */
export function checkOptions(options: KvDirectoryOptions): void {
  const { nodeCount, l1CapacityBlocks, l2CapacityBlocks, eviction } = options;
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > MAX_NODES) {
    throw new RangeError(`nodeCount must be an integer in [1, ${MAX_NODES}], got ${nodeCount}`);
  }
  if (eviction !== 'refcount' && eviction !== 'lru') throw new RangeError(`unknown eviction order ${String(eviction)}`);
  for (let n = 0; n < nodeCount; n++) {
    checkCapacity(l1CapacityBlocks, n, 'l1CapacityBlocks');
    checkCapacity(l2CapacityBlocks, n, 'l2CapacityBlocks');
  }
}

export function checkNode(node: number, nodeCount: number): void {
  if (!Number.isInteger(node) || node < 0 || node >= nodeCount) {
    throw new RangeError(`node ${node} is not in [0, ${nodeCount})`);
  }
}

/** `now` is finite and not before `last`. */
export function checkTime(now: number, last: number): void {
  if (!(now >= last) || !Number.isFinite(now)) throw new RangeError(`time ${now} is not finite or goes back (last ${last})`);
}

export function checkBlockIds(blocks: readonly number[]): void {
  for (let i = 0; i < blocks.length; i++) if (!isBlockId(blocks[i]!)) badBlockId(blocks[i]!);
}

export function checkRange(first: number, count: number): void {
  if (!isBlockId(first) || !Number.isInteger(count) || count < 0 || !isBlockId(first + count)) {
    throw new RangeError(`ids ${first} + ${count} are not a range of block ids`);
  }
}

function checkCapacity(list: readonly number[], node: number, name: string): void {
  const v = list[node];
  if (v === undefined || !Number.isInteger(v) || v < 0 || v > 0x7fffffff) {
    throw new RangeError(`${name}[${node}] must be a non-negative integer, got ${v}`);
  }
}
