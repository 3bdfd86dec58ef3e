import { describe, expect, it } from 'vitest';
import { buildSnapshot, forgetSnapshotEngineModels, snapshotEngineModel, type Snapshot } from '../../src/evaluate/index.js';
import { replayOptions } from '../../src/evaluate/snapshot.js';
import { buildCluster, parseSplit, Simulator } from '../../src/sim/index.js';
import { createTraceSource } from '../../src/workload/index.js';
import { smallCcSnapshot, smallCcSpec } from './fixtures.js';

/** The model of the reference replay run to the end of the work, as it was learned before the replay could stop once settled. */
function modelAtEnd(snapshot: Snapshot): Record<string, unknown> {
  const source = createTraceSource(snapshot.trace, { name: snapshot.label });
  const { hardware, policyModel } = buildCluster(snapshot.nodeKinds, source.model, snapshot.seed);
  const sim = new Simulator({ hardware, ...replayOptions(snapshot), source, scoredSeconds: snapshot.windowSeconds * 4, policyModel, stopWhenDrained: true });
  const { learning } = sim.run();
  return Object.fromEntries(Object.entries(learning.byKind).map(([kind, k]) => [kind, { prefill: k.current.prefill, decode: k.current.decode }]));
}

describe('the reference replay stops once the model is settled', () => {
  it('gives the model of a run to the end when every phase converges', () => {
    forgetSnapshotEngineModels();
    expect(snapshotEngineModel(smallCcSnapshot)).toEqual(modelAtEnd(smallCcSnapshot));
  });

  it('gives the model of a run to the end when a kind never runs one phase (h200 decode only, no warm-up)', () => {
    const hetero = buildSnapshot({
      ...smallCcSpec,
      nodeKinds: ['gb300', 'gb300', 'gb300', 'gb300', 'gb300', 'h200', 'h200', 'h200', 'h200'],
      warmupMinutes: 0,
      minutes: 6,
    });
    forgetSnapshotEngineModels();
    const model = snapshotEngineModel(hetero);
    expect(model).toEqual(modelAtEnd(hetero));
    expect(Object.keys(model).sort()).toEqual(['gb300', 'h200']);
  });

  it('gives the model of a run to the end when a node fails and returns (roles may move)', () => {
    const elastic: Snapshot = {
      ...buildSnapshot({ ...smallCcSpec, roles: parseSplit('4P5D', 9), nodeKinds: [...Array(5).fill('gb300'), ...Array(4).fill('h200')], warmupMinutes: 0 }),
      membership: [
        { node: 0, event: 'down', at: 30 },
        { node: 0, event: 'up', at: 150 },
      ],
    };
    forgetSnapshotEngineModels();
    expect(snapshotEngineModel(elastic)).toEqual(modelAtEnd(elastic));
  });
});
