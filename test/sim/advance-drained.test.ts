import { describe, expect, it } from 'vitest';
import { replayOptions } from '../../src/evaluate/snapshot.js';
import { buildCluster, Simulator } from '../../src/sim/index.js';
import { createTraceSource } from '../../src/workload/index.js';
import { smallCcSnapshot } from '../evaluate/fixtures.js';

function drainedRun(): Simulator {
  const snapshot = smallCcSnapshot;
  const source = createTraceSource(snapshot.trace, { name: snapshot.label });
  const { hardware, policyModel } = buildCluster(snapshot.nodeKinds, source.model, snapshot.seed);
  return new Simulator({ hardware, ...replayOptions(snapshot), source, scoredSeconds: snapshot.windowSeconds * 4, policyModel, stopWhenDrained: true });
}

describe('a run that stops when drained', () => {
  it('ends at the same time whether run at once or stepped by the caller', () => {
    const whole = drainedRun().run();
    expect(whole.simSeconds).toBeLessThan(smallCcSnapshot.windowSeconds * 4);
    for (const step of [1, 7.3]) {
      const stepped = drainedRun();
      for (let t = 0; stepped.advanceTo(t); t += step);
      const result = stepped.finish();
      expect(result.simSeconds).toBe(whole.simSeconds);
      expect(result.metrics).toEqual(whole.metrics);
    }
  });
});
