/**
 * A cheap second opinion on a call's CPU time.
 *
 * isolated-vm's cpuTime, as built here, counts the time the isolate holds the
 * thread, including time the thread waits for a core: on a busy machine a
 * 20 us call can measure 200 ms. The process's CPU time over the call bounds
 * the call's real CPU time from above as well (it adds the other threads), so
 * the sandbox calls a call over budget only when both figures say so.
 *
 * Reading the process's CPU time costs a system call (several us, a fifth of
 * a typical call), so the mark taken before a call is reused while it is at
 * most MAX_AGE_MS old. An older mark only adds the CPU spent since it was
 * taken, a few ms at most, which keeps the figure an upper bound.
 */
const MAX_AGE_MS = 5;

let mark: NodeJS.CpuUsage = process.cpuUsage();
let markedAt = performance.now();

/** A process CPU mark taken at most MAX_AGE_MS ago. */
export function processCpuMark(): NodeJS.CpuUsage {
  const now = performance.now();
  if (now - markedAt > MAX_AGE_MS) {
    mark = process.cpuUsage();
    markedAt = now;
  }
  return mark;
}

/**
 * The mark a call's CPU check needs, or none when the check can never fire
 * (a check threshold of Infinity: under the op budget, the default). Even
 * reused for 5 ms, the mark is a system call every few calls: about 200 per
 * evaluation, 3-6 % of an evaluation's profile on a loaded machine, for a
 * figure never read.
 */
export function processCpuMarkFor(checkMs: number): NodeJS.CpuUsage | undefined {
  return Number.isFinite(checkMs) ? processCpuMark() : undefined;
}

/** CPU ms the whole process spent since the mark: at least what any one call in between spent. */
export function processCpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}
