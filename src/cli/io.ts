import { writeFileSync, renameSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** Where a command writes. Tests pass buffers; the binary passes the process streams. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is a terminal (progress bars only then). */
  readonly errIsTTY: boolean;
  /** Milliseconds for progress lines (elapsed time, rates, ETA); tests pass a fake clock. Default: performance.now. */
  now?(): number;
  /** How progress is shown (the global `--progress`; src/cli/progress.ts). Absent: `auto`. */
  readonly progress?: ProgressMode;
}

/**
 * `auto`: a bar redrawn in place on a terminal, nothing otherwise; `bar`:
 * the bar even off a terminal; `lines`: a plain line at most every
 * LINE_MS (src/cli/progress.ts), for a log file or CI; `none`: nothing.
 */
export const PROGRESS_MODES = ['auto', 'bar', 'lines', 'none'] as const;
export type ProgressMode = (typeof PROGRESS_MODES)[number];

export const processIO: CliIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  errIsTTY: Boolean(process.stderr.isTTY),
};

/** A CliIO that records everything, for tests. */
export function bufferIO(): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    errIsTTY: false,
    out(text: string) {
      io.stdout += text;
    },
    err(text: string) {
      io.stderr += text;
    },
  };
  return io;
}

/** Write a file so that readers never see it half-written: temp file, then rename. */
export function writeFileAtomic(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}
