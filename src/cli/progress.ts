import type { CliIO } from './io.js';

/**
 * A one-line progress bar on stderr, drawn only on a terminal and only once
 * the work has taken more than a second (short runs stay quiet).
 */
export function progressBar(io: CliIO, label: string, total: number): { update(done: number, note?: string): void; finish(): void } {
  const started = Date.now();
  let drawn = false;
  let lastDraw = 0;
  return {
    update(done, note = '') {
      if (!io.errIsTTY) return;
      const now = Date.now();
      if (now - started < 1000 || now - lastDraw < 100) return;
      lastDraw = now;
      drawn = true;
      const frac = total > 0 ? Math.min(1, done / total) : 0;
      const width = 30;
      const filled = Math.round(frac * width);
      io.err(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}% ${note}\x1b[K`);
    },
    finish() {
      if (drawn) io.err('\r\x1b[K');
    },
  };
}
