import { describe, expect, it } from 'vitest';
import { bufferIO, type CliIO } from '../../src/cli/io.js';
import type { ProgressMode } from '../../src/cli/io.js';
import { drawMode, etaMs, formatDuration, formatEvolveNote, formatProgress, formatProgressLine, LINE_MS, progressBar, QUIET_MS } from '../../src/cli/progress.js';

/** A CliIO on a terminal or not, with a clock the test moves. */
function ioAt(errIsTTY: boolean, progress?: ProgressMode) {
  const clock = { t: 0 };
  const io: CliIO & { stderr: string; stdout: string } = Object.assign(bufferIO(), { errIsTTY, now: () => clock.t, progress });
  return { io, clock };
}

describe('progress lines', () => {
  it('ETA: the rate since the first step reported, capped by the deadline', () => {
    expect(etaMs({ done: 1, total: 10, base: 1, sinceBaseMs: 0, elapsedMs: 5_000 })).toBeNull();
    // 4 steps in 8 s since the first: 2 s a step, 5 steps left.
    expect(etaMs({ done: 5, total: 10, base: 1, sinceBaseMs: 8_000, elapsedMs: 20_000 })).toBe(10_000);
    expect(etaMs({ done: 5, total: 10, base: 1, sinceBaseMs: 8_000, elapsedMs: 20_000, deadlineMs: 24_000 })).toBe(4_000);
    // A deadline alone gives an ETA before the rate is known.
    expect(etaMs({ done: 0, total: 10, base: 0, sinceBaseMs: 0, elapsedMs: 1_000, deadlineMs: 61_000 })).toBe(60_000);
    expect(etaMs({ done: 10, total: 10, base: 1, sinceBaseMs: 9_000, elapsedMs: 9_000 })).toBe(0);
  });

  it('durations and the line', () => {
    expect([0, 45_000, 245_000, 7_380_000].map(formatDuration)).toEqual(['0s', '45s', '4m05s', '2h03m']);
    expect(formatProgress({ label: 'suite', done: 6, total: 12, base: 1, sinceBaseMs: 50_000, elapsedMs: 60_000, unit: 'runs', note: 'tiny-cc greedy' })).toBe(
      'suite [###############...............]  50% 6/12 runs, ETA 1m00s, tiny-cc greedy',
    );
  });

  it("evolve's note: the best against the best seed in percent, evaluations per second, failures", () => {
    expect(formatEvolveNote({ bestFitness: 776.2, seedsBestFitness: 800, fitnessUnit: 'seconds', evalsPerSecond: 4.25, failed: 3 })).toBe(
      'best 776.2 s, 3.0 % better than the best seed (800.0 s), 4.3 evals/s, 3 failed',
    );
    expect(formatEvolveNote({ bestFitness: 1.02, seedsBestFitness: 1, fitnessUnit: 'ratio', evalsPerSecond: 1, failed: 0 })).toBe(
      'best 1.0200 x ref, 2.0 % worse than the best seed (1.0000 x ref), 1.0 evals/s, 0 failed',
    );
    expect(formatEvolveNote({ bestFitness: null, seedsBestFitness: null, fitnessUnit: 'seconds', evalsPerSecond: 0, failed: 2 })).toBe('best -, 0.0 evals/s, 2 failed');
    expect(formatEvolveNote({ bestFitness: null, seedsBestFitness: null, fitnessUnit: 'seconds', evalsPerSecond: 0.035, failed: 0 })).toBe('best -, 2.1 evals/min, 0 failed');
  });

  it('on a terminal: quiet for the first second, then redrawn in place with the ETA, cleared at the end', () => {
    const { io, clock } = ioAt(true);
    const bar = progressBar(io, 'calibrate', 4, { unit: 'runs' });
    clock.t = QUIET_MS / 2;
    bar.update(1, 'first');
    expect(io.stderr).toBe('');
    clock.t = 3_000;
    bar.update(2, 'second');
    // One step since the first, reported at 500 ms: 2.5 s a step, 2 left.
    expect(io.stderr).toBe('\rcalibrate [###############...............]  50% 2/4 runs, ETA 5s, second\x1b[K');
    bar.update(3, 'too soon');
    expect(io.stderr).not.toContain('too soon');
    clock.t = 4_000;
    bar.update(3, 'third');
    expect(io.stderr).toContain('3/4 runs');
    bar.finish();
    expect(io.stderr.endsWith('\r\x1b[K')).toBe(true);
    expect(io.stdout).toBe('');
  });

  it('off a terminal: nothing at all', () => {
    const { io, clock } = ioAt(false);
    const bar = progressBar(io, 'suite', 3, { unit: 'runs', deadlineMs: 10_000 });
    for (let i = 1; i <= 3; i++) {
      clock.t += 5_000;
      bar.update(i, 'x');
    }
    bar.finish();
    expect(io.stderr).toBe('');
  });

  it('--progress: auto follows the terminal (serve falls back to lines), the others are what they say', () => {
    const modes = (tty: boolean) => (['auto', 'bar', 'lines', 'none', undefined] as const).map((m) => [drawMode(ioAt(tty, m).io), drawMode(ioAt(tty, m).io, 'lines')]);
    expect(modes(true)).toEqual([['bar', 'bar'], ['bar', 'bar'], ['lines', 'lines'], ['none', 'none'], ['bar', 'bar']]);
    expect(modes(false)).toEqual([['none', 'lines'], ['bar', 'bar'], ['lines', 'lines'], ['none', 'none'], ['none', 'lines']]);
  });

  it('lines: quiet for the first second, then a plain line at most every LINE_MS, and the last state at the end', () => {
    const { io, clock } = ioAt(false, 'lines');
    const bar = progressBar(io, 'evolve', 10, { unit: 'iterations' });
    clock.t = QUIET_MS / 2;
    bar.update(1, 'first');
    expect(io.stderr).toBe('');
    clock.t = 10_500;
    bar.update(2, 'second');
    // One step since the first (at 500 ms): 10 s a step, 8 left.
    expect(io.stderr).toBe('evolve: 20% 2/10 iterations, 11s elapsed, ETA 1m20s, second\n');
    clock.t = 10_500 + LINE_MS - 1;
    bar.update(3, 'too soon');
    expect(io.stderr).not.toContain('too soon');
    clock.t = 10_500 + LINE_MS;
    bar.update(4, 'fourth');
    expect(io.stderr.split('\n')).toHaveLength(3);
    expect(io.stderr).toContain('evolve: 40% 4/10 iterations, 41s elapsed, ');
    clock.t += 1_000;
    bar.update(5, 'last');
    bar.finish();
    // No control codes: a log file reads as text.
    expect(io.stderr).not.toMatch(/[\r\x1b]/);
    expect(io.stderr.split('\n').at(-2)).toBe('evolve: 50% 5/10 iterations, 42s elapsed, ETA 51s, last');
    bar.finish();
    expect(io.stderr.split('\n')).toHaveLength(4);
    expect(io.stdout).toBe('');
  });

  it('with a deadline, the share done is the time share when that is further (a time budget with a large step cap)', () => {
    const state = { label: 'evolve', done: 3, total: 1_000_000, base: 1, sinceBaseMs: 60_000, elapsedMs: 300_000, deadlineMs: 600_000, unit: 'iterations' };
    expect(formatProgressLine(state)).toBe('evolve: 50% 3/1000000 iterations, 5m00s elapsed, ETA 5m00s');
    expect(formatProgress({ ...state, done: 900_000, base: 899_999 })).toMatch(/\] {2}90% /);
  });

  it('bar off a terminal when asked; none even on a terminal', () => {
    const asked = ioAt(false, 'bar');
    const none = ioAt(true, 'none');
    for (const { io, clock } of [asked, none]) {
      const bar = progressBar(io, 'suite', 2, { unit: 'runs' });
      clock.t = 2_000;
      bar.update(1, 'x');
      bar.finish();
    }
    expect(asked.io.stderr).toMatch(/^\rsuite \[#+\.+\]  50% 1\/2 runs, x\x1b\[K\r\x1b\[K$/);
    expect(none.io.stderr).toBe('');
  });
});
