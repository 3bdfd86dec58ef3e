import type { CliIO } from './io.js';

/** What a command draws, once `--progress` and the terminal are read. */
export type DrawMode = 'bar' | 'lines' | 'none';

/**
 * The global `--progress` (io.progress) as a command draws it: `auto` is the
 * bar on a terminal and `offTerminal` elsewhere (nothing for most commands:
 * their output stays the only thing written; serve's status lines).
 */
export function drawMode(io: CliIO, offTerminal: 'lines' | 'none' = 'none'): DrawMode {
  const mode = io.progress ?? 'auto';
  if (mode === 'auto') return io.errIsTTY ? 'bar' : offTerminal;
  return mode;
}

/** Milliseconds, from any origin. */
export type Clock = () => number;

/** The clock progress lines use: the CliIO's (tests pass a fake one), or performance.now. */
export function clockOf(io: CliIO): Clock {
  return io.now ? () => io.now!() : () => performance.now();
}

/** Nothing is drawn before the work has taken this long (short runs stay quiet). */
export const QUIET_MS = 1000;
/** At most one redraw per this many ms. */
export const REDRAW_MS = 100;
/** `--progress lines`: at most one line per this many ms (and the last state at the end). */
export const LINE_MS = 30_000;

export interface ProgressOptions {
  /** What `done` and `total` count ("runs"); without it only the percentage is shown. */
  unit?: string;
  /** The work stops at this many ms after the start at the latest (evolve --max-minutes): the ETA is never later. */
  deadlineMs?: number;
}

export interface ProgressState extends ProgressOptions {
  label: string;
  done: number;
  total: number;
  /** Since the start (the deadline counts from it). */
  elapsedMs: number;
  /** The rate is measured from the first step reported: `done` then, and the ms since. */
  base: number;
  sinceBaseMs: number;
  note?: string;
}

/**
 * Time left: the rate of the steps since the first one reported (so a resumed
 * run's earlier steps and the set-up before the first step do not count)
 * applied to the steps left, capped by the deadline; null while unknown.
 */
export function etaMs(s: Pick<ProgressState, 'done' | 'total' | 'base' | 'sinceBaseMs' | 'elapsedMs' | 'deadlineMs'>): number | null {
  const byDeadline = s.deadlineMs === undefined ? Infinity : Math.max(0, s.deadlineMs - s.elapsedMs);
  const steps = s.done - s.base;
  const byRate = steps > 0 ? (s.sinceBaseMs / steps) * Math.max(0, s.total - s.done) : Infinity;
  const eta = Math.min(byDeadline, byRate);
  return Number.isFinite(eta) ? eta : null;
}

/** `45s`, `4m05s`, `2h03m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The share done: of the steps, or of the deadline's time when that is further (evolve --max-minutes with a large --iterations). */
function fraction(s: ProgressState): number {
  const bySteps = s.total > 0 ? s.done / s.total : 0;
  const byTime = s.deadlineMs !== undefined && s.deadlineMs > 0 ? s.elapsedMs / s.deadlineMs : 0;
  return Math.min(1, Math.max(bySteps, byTime));
}

/** One progress line, without the terminal control codes: `suite [#####.....]  50% 6/12 runs, ETA 1m05s, tiny-cc greedy`. */
export function formatProgress(s: ProgressState): string {
  const frac = fraction(s);
  const width = 30;
  const filled = Math.round(frac * width);
  const eta = etaMs(s);
  const parts = [s.unit ? `${s.done}/${s.total} ${s.unit}` : '', eta === null ? '' : `ETA ${formatDuration(eta)}`, s.note ?? ''].filter(Boolean);
  return `${s.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}%${parts.length ? ' ' + parts.join(', ') : ''}`;
}

/** One plain progress line, for a log: `suite: 50% 6/12 runs, 1m00s elapsed, ETA 1m00s, tiny-cc greedy`. */
export function formatProgressLine(s: ProgressState): string {
  const frac = fraction(s);
  const eta = etaMs(s);
  const parts = [s.unit ? `${s.done}/${s.total} ${s.unit}` : '', `${formatDuration(s.elapsedMs)} elapsed`, eta === null ? '' : `ETA ${formatDuration(eta)}`, s.note ?? ''].filter(Boolean);
  return `${s.label}: ${(frac * 100).toFixed(0)}% ${parts.join(', ')}`;
}

/**
 * Progress on stderr, as `--progress` says (drawMode): a one-line bar
 * redrawn in place (at most every REDRAW_MS, cleared at the end), or plain
 * lines (at most every LINE_MS, and the last state at the end if it was not
 * the last line), or nothing. Either starts only once the work has taken
 * more than QUIET_MS, so short runs stay quiet.
 */
export function progressBar(io: CliIO, label: string, total: number, options: ProgressOptions = {}): { update(done: number, note?: string): void; finish(): void } {
  const mode = drawMode(io);
  const now = clockOf(io);
  const started = now();
  let drawn = false;
  let lastDraw = -Infinity;
  let base: { done: number; at: number } | undefined;
  /** lines: the state of the latest update not written yet. */
  let unwritten: ProgressState | undefined;
  const stateAt = (t: number, done: number, note: string | undefined): ProgressState => ({
    label, done, total, base: base?.done ?? done, sinceBaseMs: base ? t - base.at : 0, elapsedMs: t - started, note, ...options,
  });
  return {
    update(done, note) {
      if (mode === 'none') return;
      const t = now();
      if (base === undefined && done > 0) base = { done, at: t };
      if (t - started < QUIET_MS) return;
      if (t - lastDraw < (mode === 'bar' ? REDRAW_MS : LINE_MS)) {
        // A bar skips the redraw; lines keep the state for the end.
        if (mode === 'lines') unwritten = stateAt(t, done, note);
        return;
      }
      const state = stateAt(t, done, note);
      lastDraw = t;
      drawn = true;
      unwritten = undefined;
      io.err(mode === 'bar' ? `\r${formatProgress(state)}\x1b[K` : `${formatProgressLine(state)}\n`);
    },
    finish() {
      if (mode === 'bar' && drawn) io.err('\r\x1b[K');
      if (mode === 'lines' && unwritten) io.err(`${formatProgressLine(unwritten)}\n`);
      drawn = false;
      unwritten = undefined;
    },
  };
}

/** What evolve reports after each iteration (src/evolve/engine IterationProgress). */
export interface EvolveProgress {
  bestFitness: number | null;
  seedsBestFitness: number | null;
  fitnessUnit: 'seconds' | 'ratio';
  evalsPerSecond: number;
  failed: number;
}

/** evolve's note: `best 812.4 s, 3.1 % better than the best seed (838.4 s), 4.2 evals/s, 3 failed`. */
export function formatEvolveNote(p: EvolveProgress): string {
  const f = (x: number) => (p.fitnessUnit === 'ratio' ? `${x.toFixed(4)} x ref` : `${x.toFixed(1)} s`);
  const parts = [`best ${p.bestFitness === null ? '-' : f(p.bestFitness)}`];
  if (p.bestFitness !== null && p.seedsBestFitness !== null && p.seedsBestFitness > 0) {
    const pct = ((p.seedsBestFitness - p.bestFitness) / p.seedsBestFitness) * 100;
    parts.push(`${Math.abs(pct).toFixed(1)} % ${pct >= 0 ? 'better' : 'worse'} than the best seed (${f(p.seedsBestFitness)})`);
  }
  // Long evaluations (a 3-hour scenario) run at a few per minute: per second they would all read 0.0.
  const rate = p.evalsPerSecond > 0 && p.evalsPerSecond < 0.1 ? `${(p.evalsPerSecond * 60).toFixed(1)} evals/min` : `${p.evalsPerSecond.toFixed(1)} evals/s`;
  parts.push(rate, `${p.failed} failed`);
  return parts.join(', ');
}
