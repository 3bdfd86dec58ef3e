import { realClock, type Clock } from '../../src/dataplane/index.js';

/**
 * An unpaced clock that can hold the data plane: holdOnce(condition, line)
 * makes the next steps wait, the first time the condition holds, until a log
 * line matching `line` has been seen (or had been already).
 */
export function gatedClock() {
  const lines: string[] = [];
  let gate: { pattern: RegExp; release: () => void; promise: Promise<void> } | null = null;
  let held = false;
  const seen = (pattern: RegExp) => lines.some((l) => pattern.test(l));
  const clock: Clock = {
    now: () => realClock.now(),
    async sleep(ms, signal) {
      if (gate) await gate.promise;
      return realClock.sleep(ms, signal);
    },
  };
  return {
    clock,
    lines,
    log(line: string) {
      lines.push(line);
      if (gate && gate.pattern.test(line)) {
        gate.release();
        gate = null;
      }
    },
    holdOnce(condition: boolean, pattern: RegExp) {
      if (held || !condition) return;
      held = true;
      if (seen(pattern)) return;
      let release!: () => void;
      const promise = new Promise<void>((r) => (release = r));
      gate = { pattern, release, promise };
    },
  };
}
