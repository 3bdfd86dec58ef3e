import { describe, expect, it } from 'vitest';
import { buildSnapshotFromStrings } from '../../../src/evaluate/index.js';
import { packSnapshot, unpackSnapshot } from '../../../src/evolve/pool/index.js';

describe('packed snapshot', () => {
  it('round-trips a snapshot exactly (structured-clone semantics), in chunks shared with the workers', async () => {
    const snapshot = buildSnapshotFromStrings({ workload: 'cc', agents: 32, nodes: 9, split: '4P5D', nodeKinds: 'gb300', mechanics: 'sglang-pd', warmupMinutes: 1, minutes: 6, seed: 3 });
    const packed = await packSnapshot(snapshot);
    expect(packed.chunks.length).toBeGreaterThan(1);
    expect(packed.chunks.every((c) => c instanceof SharedArrayBuffer)).toBe(true);
    expect(packed.shell.trace.events).toEqual([]);
    expect(unpackSnapshot(structuredClone(packed))).toEqual(snapshot);
  });
});
