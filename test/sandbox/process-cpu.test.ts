import { describe, expect, it, vi } from 'vitest';
import { processCpuMark, processCpuMsSince } from '../../src/sandbox/process-cpu.js';

describe('process CPU second opinion', () => {
  it('reuses a mark while it is at most 5 ms old, takes a new one after', () => {
    // The mark's age is wall time: a fake clock makes "5 ms later" exact on any machine.
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      // Far past any mark taken before the fake clock was installed.
      vi.advanceTimersByTime(1e9);
      const mark = processCpuMark();
      expect(processCpuMark()).toBe(mark);
      vi.advanceTimersByTime(5);
      expect(processCpuMark()).toBe(mark);
      vi.advanceTimersByTime(1);
      const next = processCpuMark();
      expect(next).not.toBe(mark);
      expect(processCpuMark()).toBe(next);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reports at least the CPU the process spent since the mark', () => {
    const mark = processCpuMark();
    const start = process.cpuUsage();
    // Spin until the process has spent 30 ms of CPU (however long that takes on a loaded machine).
    let x = 0;
    let spentMs = 0;
    while (spentMs < 30) {
      for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + 1);
      const used = process.cpuUsage(start);
      spentMs = (used.user + used.system) / 1000;
    }
    expect(x).toBeGreaterThan(0);
    expect(processCpuMsSince(mark)).toBeGreaterThanOrEqual(spentMs);
  });
});
