/**
 * One bench:kv-replay process: runs bench:sim's scenario on this tree's
 * simulator (argv[2], a dist/src/sim/index.js) while recording every call
 * it makes to its KV directory, then replays the calls `argv[4]` times on
 * a fresh KvDirectory from argv[3] (a dist/src/sim/kv/directory.js of this
 * tree or of an older one), timing only the replays. Prints one JSON line:
 * CPU seconds per replay, the calls and blocks replayed, and the replay's
 * outcome (final stats and a hash of every match), which two trees with the
 * same directory semantics give alike.
 */
import { pathToFileURL } from 'node:url';

interface Directory {
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
type DirectoryClass = new (options: object) => Directory;
interface SimModule {
  parseScenario(input: Record<string, unknown>): unknown;
  runScenario(s: unknown): unknown;
}

/** A recorded call: its method and arguments (block lists copied). */
type Call = [keyof Directory, ...unknown[]];
const RECORDED = ['match', 'admitPrefill', 'admitDecode', 'addProduced', 'endBranch', 'retire', 'clearGpu', 'clearNode', 'setEviction'] as const;

const [simPath, kvPath, repeatArg] = process.argv.slice(2);
if (!simPath || !kvPath) {
  console.error('usage: run-once.js <dist/src/sim/index.js> <dist/src/sim/kv/directory.js> [replays]');
  process.exit(2);
}
const repeat = Number(repeatArg ?? 3);
const sim = (await import(pathToFileURL(simPath).href)) as SimModule;
const own = (await import(pathToFileURL(simPath.replace(/index\.js$/, 'kv/directory.js')).href)) as { KvDirectory: DirectoryClass };
const target = (await import(pathToFileURL(kvPath).href)) as { KvDirectory: DirectoryClass };

// Record: wrap the public methods of this tree's directory, run the scenario, unwrap.
const calls: Call[] = [];
let options: object | null = null;
const proto = own.KvDirectory.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
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
const BENCH_SIM_SCENARIO = { workload: 'cc', agents: 126, nodes: 9, split: '4P5D', warmupMinutes: 30, minutes: 60, seed: 1 };
sim.runScenario(sim.parseScenario(BENCH_SIM_SCENARIO));
for (const [name, original] of originals) proto[name] = original;
if (!options) throw new Error('bench:kv-replay: the scenario made no KV directory call');

function replay(): { hash: number; stats: object } {
  const d = new target.KvDirectory(options!);
  let hash = 0;
  for (const call of calls) {
    const [name, ...args] = call;
    if (name !== 'match') {
      (d[name] as (...a: unknown[]) => void)(...args);
      continue;
    }
    const m = d.match(args[0] as number[]);
    hash = (Math.imul(hash, 31) + m.pool * 7 + m.ideal) | 0;
    for (let n = 0; n < m.gpu.length; n++) hash = (Math.imul(hash, 31) + m.gpu[n]! * 3 + m.local[n]!) | 0;
    for (let k = 0; k < m.poolSource.length; k++) hash = (Math.imul(hash, 31) + m.poolSource[k]!) | 0;
  }
  return { hash, stats: d.stats() };
}

const cpu: number[] = [];
let outcome = { hash: 0, stats: {} };
for (let r = 0; r < repeat; r++) {
  const c0 = process.cpuUsage();
  outcome = replay();
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1e6);
}
const blocks = calls.reduce((sum, [name, ...args]) => sum + (name === 'match' || name.startsWith('ad') ? (args[name === 'match' ? 0 : 2] as number[]).length : 0), 0);
console.log(JSON.stringify({ cpu, calls: calls.length, blocks, hash: outcome.hash, stats: outcome.stats }));
