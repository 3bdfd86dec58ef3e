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
import { recordCalls, type DirectoryClass, type SimModule } from './record.js';

const [simPath, kvPath, repeatArg] = process.argv.slice(2);
if (!simPath || !kvPath) {
  console.error('usage: run-once.js <dist/src/sim/index.js> <dist/src/sim/kv/directory.js> [replays]');
  process.exit(2);
}
const repeat = Number(repeatArg ?? 3);
const sim = (await import(pathToFileURL(simPath).href)) as SimModule;
const own = (await import(pathToFileURL(simPath.replace(/index\.js$/, 'kv/directory.js')).href)) as { KvDirectory: DirectoryClass };
const target = (await import(pathToFileURL(kvPath).href)) as { KvDirectory: DirectoryClass };

const { calls, options } = recordCalls(sim, own.KvDirectory);

function replay(): { hash: number; stats: object } {
  const d = new target.KvDirectory(options);
  let hash = 0;
  for (const call of calls) {
    const [name, ...args] = call;
    if (name !== 'match') {
      (d[name] as unknown as (...a: unknown[]) => void)(...args);
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
