import { describe, expect, it } from 'vitest';
import { createSimulator, parseScenario } from '../../src/sim/index.js';

// The data plane paces the simulator against a wall clock by advancing it in
// monitoring steps; that must not change what the simulation computes.
describe('advancing the simulator in steps', () => {
  const scenario = parseScenario({ workload: 'cc', agents: 40, warmupMinutes: 2, minutes: 5, seed: 7 });

  it('gives the same result as one run', () => {
    const whole = createSimulator(scenario).run();
    const stepped = createSimulator(scenario);
    let t = 0;
    while (stepped.advanceTo(t)) {
      expect(stepped.time).toBeLessThanOrEqual(t);
      t += 5;
    }
    const result = stepped.finish();
    expect(JSON.stringify(result)).toBe(JSON.stringify(whole));
    expect(stepped.done).toBe(true);
  });

  it('finishing early ends the run where it stands (finish checks request conservation)', () => {
    const sim = createSimulator(scenario);
    sim.advanceTo(200);
    expect(sim.time).toBe(200);
    expect(sim.completedSlices(10).length).toBe(3);
    const result = sim.finish();
    expect(result.simSeconds).toBe(200);
    expect(result.metrics.requestsCompleted).toBeGreaterThan(0);
    expect(sim.advanceTo(300)).toBe(false);
  });
});
