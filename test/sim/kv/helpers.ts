import { KvDirectory, type EvictionOrder } from '../../../src/sim/kv/index.js';

/** A directory with uniform capacities, large by default so that tests of counts see no eviction. */
export function directory(opts: { nodes?: number; l1?: number; l2?: number; eviction?: EvictionOrder } = {}): KvDirectory {
  const nodes = opts.nodes ?? 4;
  return new KvDirectory({
    nodeCount: nodes,
    l1CapacityBlocks: Array(nodes).fill(opts.l1 ?? 1000),
    l2CapacityBlocks: Array(nodes).fill(opts.l2 ?? 1000),
    eviction: opts.eviction ?? 'refcount',
  });
}

/** Counts of `blocks` on `node`, in order. */
export function counts(kv: KvDirectory, blocks: readonly number[], node: number): number[] {
  return blocks.map((b) => kv.refCount(b, node));
}

export function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}
