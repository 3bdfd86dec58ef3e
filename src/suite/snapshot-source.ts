import { deserialize } from 'node:v8';
import { InputError } from '../common/errors.js';
import type { Snapshot } from '../evaluate/index.js';
import { loadScenario, scenarioSnapshot, type LoadedScenario } from '../scenario/index.js';
import { expandNodeKinds, type MembershipChange } from '../sim/index.js';
import { SUITE_CAP_FACTOR } from './split-run.js';
import type { SnapshotSource } from './tasks.js';

/** A scenario at a seed, as the suite's tasks name it. */
export function scenarioSource(s: LoadedScenario, seed: number): Extract<SnapshotSource, { kind: 'scenario' }> {
  return { kind: 'scenario', key: `${s.file}#${seed}#${s.contentHash}`, file: s.file, seed, contentHash: s.contentHash };
}

/** The cluster facts the oracles need, read from the scenario without building its trace. */
export function scenarioCluster(s: LoadedScenario): { nodeKinds: string[]; warmupSeconds: number; membership: MembershipChange[]; horizonSeconds: number } {
  return {
    nodeKinds: expandNodeKinds(s.run.nodeKinds, s.run.nodes),
    warmupSeconds: s.run.warmupMinutes * 60,
    membership: s.run.membership.map((m) => ({ ...m })),
    horizonSeconds: (s.run.warmupMinutes + s.run.minutes * SUITE_CAP_FACTOR) * 60,
  };
}

/**
 * The last few snapshots this thread built, by key: tasks come scenario by
 * scenario, so a small memo builds each about once per worker while holding
 * at most two long traces in memory.
 */
const MEMO_SIZE = 2;
const memo = new Map<string, Snapshot>();

export function resolveSnapshot(source: SnapshotSource): Snapshot {
  if (source.kind === 'inline') return source.snapshot;
  const hit = memo.get(source.key);
  if (hit) return hit;
  if (source.kind === 'serialized') {
    const snapshot = deserialize(new Uint8Array(source.bytes)) as Snapshot;
    return remember(source.key, snapshot);
  }
  const scenario = loadScenario(source.file);
  // The file is read again here (in a worker): refuse a file edited since the suite started.
  if (scenario.contentHash !== source.contentHash) throw new InputError('the scenario file changed while the suite ran', { file: source.file });
  return remember(source.key, scenarioSnapshot(scenario, { seed: source.seed }));
}

function remember(key: string, snapshot: Snapshot): Snapshot {
  memo.set(key, snapshot);
  while (memo.size > MEMO_SIZE) memo.delete(memo.keys().next().value!);
  return snapshot;
}
