/**
 * Recording bench:sim's KV directory calls: wrap the public methods of a
 * KvDirectory class, run bench:sim's scenario on a simulator that uses that
 * class, unwrap. Shared by the replay (run-once.ts) and the census
 * (census.ts), so both see exactly the same calls.
 */
import { BENCH_SIM_SCENARIO } from '../sim/bench-scenario.js';

export interface Directory {
  match(blocks: readonly number[]): { gpu: Int32Array; local: Int32Array; pool: number; poolSource: Int32Array; ideal: number };
  admitPrefill(node: number, branch: number, blocks: readonly number[], now: number): void;
  admitDecode(node: number, branch: number, blocks: readonly number[], now: number): void;
  addProduced(node: number, branch: number, blocks: readonly number[], now: number): void;
  endBranch(branch: number): void;
  retire(first: number, count: number): void;
  clearGpu(node: number): void;
  clearNode(node: number): void;
  setEviction(order: string, onGpu?: boolean): void;
  stats(): object;
  capacityOf(node: number, tier: 1 | 2): number;
  nodeCount: number;
  eviction: string;
}
export type DirectoryClass = new (options: object) => Directory;
export interface SimModule {
  parseScenario(input: Record<string, unknown>): unknown;
  runScenario(s: unknown): unknown;
}

/** A recorded call: its method and arguments (block lists copied). */
export type Call = [keyof Directory, ...unknown[]];
export const RECORDED = ['match', 'admitPrefill', 'admitDecode', 'addProduced', 'endBranch', 'retire', 'clearGpu', 'clearNode', 'setEviction'] as const;

export interface Recording {
  calls: Call[];
  /** The directory's construction options, as the scenario made it. */
  options: object;
}

/** Run bench:sim's scenario on `sim`, whose directory is `own`, recording every call it makes to it. */
export function recordCalls(sim: SimModule, own: DirectoryClass): Recording {
  const calls: Call[] = [];
  let options: object | null = null;
  const proto = own.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const name of RECORDED) {
    const original = proto[name]!;
    originals.set(name, original);
    proto[name] = function (this: Directory, ...args: unknown[]): unknown {
      if (!options) {
        if (calls.length > 0) throw new Error('bench:kv-replay: the scenario made more than one KV directory');
        const nodes = [...Array(this.nodeCount).keys()];
        options = { nodeCount: this.nodeCount, l1CapacityBlocks: nodes.map((n) => this.capacityOf(n, 1)), l2CapacityBlocks: nodes.map((n) => this.capacityOf(n, 2)), eviction: this.eviction };
      }
      calls.push([name, ...args.map((a) => (Array.isArray(a) ? [...(a as number[])] : a))]);
      return original.apply(this, args);
    };
  }
  try {
    sim.runScenario(sim.parseScenario(BENCH_SIM_SCENARIO));
  } finally {
    for (const [name, original] of originals) proto[name] = original;
  }
  if (!options) throw new Error('bench:kv-replay: the scenario made no KV directory call');
  return { calls, options };
}
