import { describe, expect, it, vi } from 'vitest';
import { FakeClock, realClock, runPaced, type Steppable } from '../../src/dataplane/index.js';
import { makePlane, seed, smallScenario } from './helpers.js';

/** A stand-in for the data plane: 5 s steps, ends at `end`; `work` ms of clock time per step. */
function fakeTarget(clock: FakeClock, end = 1000, work = 0): Steppable & { steps: number[] } {
  let t = 0;
  let next = 0;
  const steps: number[] = [];
  return {
    steps,
    get simSeconds() {
      return t;
    },
    get nextStepAt() {
      return next;
    },
    step() {
      clock.advance(work);
      t = next;
      steps.push(clock.now());
      next += 5;
      return t < end;
    },
  };
}

describe('pacing against the clock', () => {
  it('takes the step to simulated time T at start + T / speed', async () => {
    const clock = new FakeClock(1000);
    const target = fakeTarget(clock);
    const r = await runPaced(target, { speed: 10, clock, untilSimSeconds: 100 });
    expect(r).toMatchObject({ stop: 'until', steps: 21, simSeconds: 100, wallMs: 10_000, maxLagMs: 0 });
    expect(target.steps).toEqual(Array.from({ length: 21 }, (_, i) => 1000 + i * 500));
    expect(clock.sleeps).toEqual(Array(20).fill(500));
  });

  it('sleeps only what the step computation left of the budget, and reports lag when it is slower', async () => {
    const clock = new FakeClock();
    const r = await runPaced(fakeTarget(clock, 1000, 200), { speed: 10, clock, untilSimSeconds: 50 });
    expect(r.wallMs).toBe(5200);
    expect(clock.sleeps.every((ms) => Math.abs(ms - 300) < 1e-9)).toBe(true);

    const slow = new FakeClock();
    const s = await runPaced(fakeTarget(slow, 1000, 800), { speed: 10, clock: slow, untilSimSeconds: 50 });
    expect(slow.sleeps).toEqual([]);
    expect(s.wallMs).toBe(11 * 800);
    expect(s.maxLagMs).toBe(10 * 800 - 10 * 500);
  });

  it('runs as fast as possible at speed 0 or Infinity, to the end', async () => {
    for (const speed of [0, -1, Infinity]) {
      const clock = new FakeClock();
      const r = await runPaced(fakeTarget(clock, 100), { speed, clock });
      expect(r).toMatchObject({ stop: 'ended', steps: 21, simSeconds: 100, wallMs: 0 });
      expect(clock.sleeps).toEqual([]);
    }
  });

  it('stops between steps when the signal aborts, even during a long sleep of the real clock', async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    const target = fakeTarget(clock);
    const r = await runPaced(target, { speed: 1, clock, signal: ac.signal }, () => {
      if (target.steps.length === 3) ac.abort();
    });
    expect(r).toMatchObject({ stop: 'aborted', steps: 3 });

    // The real clock's sleep, on fake timers: it resolves on abort with no time passing, and leaves no timer behind.
    vi.useFakeTimers();
    try {
      const real = new AbortController();
      let woke = false;
      const sleeping = realClock.sleep(60_000, real.signal).then(() => (woke = true));
      expect(vi.getTimerCount()).toBe(1);
      real.abort();
      await sleeping;
      expect(woke).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('paces the data plane and reports its status at every step', async () => {
    const plane = makePlane(smallScenario({ minutes: 2 }), seed('static-4p5d'));
    try {
      const clock = new FakeClock();
      const seen: number[] = [];
      const r = await plane.runPaced({ speed: 60, clock, onStep: (s) => seen.push(s.simSeconds) });
      expect(r.stop).toBe('ended');
      expect(seen.slice(0, 3)).toEqual([0, 5, 10]);
      expect(seen.at(-1)).toBe(120);
      // 120 simulated seconds at 60x: two seconds of (fake) wall time.
      expect(r.wallMs).toBeCloseTo(2000, 6);
      expect(plane.status().done).toBe(true);
      expect(plane.step()).toBe(false);
      const result = plane.finish();
      expect(result.sim.simSeconds).toBe(120);
      expect(result.requests.dropped).toBe(0);
    } finally {
      plane.dispose();
    }
  });
});
