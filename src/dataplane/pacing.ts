/**
 * Wall-clock pacing of the simulation. The clock is injected: the data plane
 * reads the wall clock nowhere else, and tests drive a fake one.
 */
export interface Clock {
  /** Milliseconds from an arbitrary origin, monotonic. */
  now(): number;
  /**
   * Wait `ms` milliseconds (0: just let other work run). Resolves early,
   * without throwing, when `signal` aborts.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: performance.now, setTimeout (setImmediate for a zero wait). */
export const realClock: Clock = {
  now: () => performance.now(),
  sleep(ms, signal) {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        signal?.removeEventListener('abort', done);
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      let timer: NodeJS.Timeout | undefined;
      if (ms <= 0) {
        setImmediate(done);
      } else {
        timer = setTimeout(done, ms);
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  },
};

/** A clock that only moves when slept on: for tests (no real waiting). */
export class FakeClock implements Clock {
  private t: number;
  /** Every non-zero sleep requested, in ms. */
  readonly sleeps: number[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  /** Move the clock forward, as if the simulation had taken this long to compute. */
  advance(ms: number): void {
    this.t += ms;
  }

  sleep(ms: number): Promise<void> {
    if (ms > 0) {
      this.sleeps.push(ms);
      this.t += ms;
    }
    return Promise.resolve();
  }
}

export interface PaceOptions {
  /**
   * Simulated seconds per real second. 0, a negative number or Infinity:
   * as fast as possible (still yielding to other work between steps).
   */
  speed: number;
  clock?: Clock;
  /** Stops the run between two steps (a long sleep is cut short). */
  signal?: AbortSignal;
  /** Stop before a step that would go past this simulated time. */
  untilSimSeconds?: number;
}

export type PaceStop = 'ended' | 'aborted' | 'until';

export interface PaceResult {
  stop: PaceStop;
  steps: number;
  /** Simulated seconds at the stop. */
  simSeconds: number;
  /** Wall milliseconds the run took, by the clock. */
  wallMs: number;
  /** The furthest the simulation fell behind the wall clock, ms (0: always on time). */
  maxLagMs: number;
}

/** What the pacer drives: one monitoring step at a time. */
export interface Steppable {
  /** Simulated time now. */
  readonly simSeconds: number;
  /** Simulated time the next step advances to. */
  readonly nextStepAt: number;
  /** Advance one step; false once the simulation has ended. */
  step(): boolean;
}

/**
 * Run steps against the clock: the step to simulated time T is taken when
 * the wall clock reaches start + (T - T_start) / speed. A simulation slower
 * than `speed` runs as fast as it can and catches up when it can (the lag is
 * reported, not skipped). `onStep` is called after every step.
 */
export async function runPaced(target: Steppable, options: PaceOptions, onStep?: (info: { lagMs: number }) => void): Promise<PaceResult> {
  const clock = options.clock ?? realClock;
  const speed = options.speed;
  const fast = !(speed > 0) || !Number.isFinite(speed);
  const wall0 = clock.now();
  const sim0 = target.simSeconds;
  let steps = 0;
  let maxLagMs = 0;
  let stop: PaceStop = 'ended';
  for (;;) {
    if (options.signal?.aborted) {
      stop = 'aborted';
      break;
    }
    const next = target.nextStepAt;
    if (options.untilSimSeconds !== undefined && next > options.untilSimSeconds) {
      stop = 'until';
      break;
    }
    let lagMs = 0;
    if (fast) {
      await clock.sleep(0, options.signal);
    } else {
      const due = wall0 + ((next - sim0) / speed) * 1000;
      const wait = due - clock.now();
      lagMs = Math.max(0, -wait);
      await clock.sleep(Math.max(0, wait), options.signal);
    }
    if (options.signal?.aborted) {
      stop = 'aborted';
      break;
    }
    maxLagMs = Math.max(maxLagMs, lagMs);
    const more = target.step();
    steps++;
    onStep?.({ lagMs });
    if (!more) {
      stop = 'ended';
      break;
    }
  }
  return { stop, steps, simSeconds: target.simSeconds, wallMs: clock.now() - wall0, maxLagMs };
}
