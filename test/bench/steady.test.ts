import { describe, expect, it } from 'vitest';
import { doubled, figures, leastCpu, MIN_CPU_GAIN, median, steadyDifference, verdict } from '../../bench/sim/steady.js';

// Shaped like bench:scale's 1,024-node runs: the 1+2 min window mostly start-up, the 2+4 min one mostly past it.
const short = { events: 115_455, requests: 34_825, cpu: 7.5, simSeconds: 180 };
const long = { events: 1_000_000, requests: 159_000, cpu: 38.7, simSeconds: 360 };

describe('steady-state difference', () => {
  it('is the doubled run minus the run, with figures of the difference', () => {
    const r = steadyDifference(short, long);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.delta).toEqual({ events: 884_545, requests: 124_175, cpu: long.cpu - short.cpu, simSeconds: 180 });
    expect(r.figures.eventsPerCpuSecond).toBeCloseTo(884_545 / 31.2, 6);
    expect(r.figures.cpuUsPerRequest).toBeCloseTo((31.2 / 124_175) * 1e6, 6);
    expect(r.figures.eventsPerRequest).toBeCloseTo(884_545 / 124_175, 9);
    expect(r.figures.realTimeFactor).toBeCloseTo(180 / 31.2, 9);
  });

  it('gives no figure for a negative or tiny CPU difference, saying why', () => {
    const slower = steadyDifference({ ...short, cpu: 40 }, long);
    expect(slower.ok).toBe(false);
    if (!slower.ok) expect(slower.reason).toMatch(/38\.70 s CPU against 40\.00 s, a difference of -1\.30 s under 20 %/);
    const justUnder = steadyDifference(short, { ...long, cpu: short.cpu * (1 + MIN_CPU_GAIN) - 0.01 });
    expect(justUnder.ok).toBe(false);
    expect(steadyDifference(short, { ...long, cpu: short.cpu * (1 + MIN_CPU_GAIN) + 0.01 }).ok).toBe(true);
  });

  it('gives no figure when the doubled run is not longer or adds nothing', () => {
    const same = steadyDifference(short, { ...long, simSeconds: 180 });
    expect(same.ok).toBe(false);
    if (!same.ok) expect(same.reason).toMatch(/simulated 0 s more/);
    const noRequests = steadyDifference(short, { ...long, requests: short.requests });
    expect(noRequests.ok).toBe(false);
    if (!noRequests.ok) expect(noRequests.reason).toMatch(/0 requests/);
    const missing = steadyDifference(short, { ...long, requests: undefined as unknown as number });
    expect(missing).toEqual({ ok: false, reason: 'a run reported no number for requests' });
  });

  it('whole-run figures are the same formulas on one run', () => {
    expect(figures(short)).toEqual({
      eventsPerCpuSecond: 115_455 / 7.5,
      cpuUsPerRequest: (7.5 / 34_825) * 1e6,
      eventsPerRequest: 115_455 / 34_825,
      realTimeFactor: 24,
    });
  });
});

describe('steady helpers', () => {
  it('doubles both the warm-up and the scored minutes', () => {
    expect(doubled([30, 60])).toEqual([60, 120]);
    expect(doubled([1, 2])).toEqual([2, 4]);
  });

  it('keeps the least-CPU run and takes medians', () => {
    expect(leastCpu([{ cpu: 3, id: 'a' }, { cpu: 2, id: 'b' }, { cpu: 2.5, id: 'c' }]).id).toBe('b');
    expect(() => leastCpu([])).toThrow(RangeError);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('states a ratio against the target without changing it', () => {
    expect(verdict(0.38)).toBe('0.38 (>= 0.5: no)');
    expect(verdict(0.5)).toBe('0.50 (>= 0.5: yes)');
  });
});
