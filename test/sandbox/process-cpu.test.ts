import { describe, expect, it } from 'vitest';
import { processCpuMark, processCpuMsSince } from '../../src/sandbox/process-cpu.js';

describe('process CPU second opinion', () => {
  it('reuses a fresh mark, and what it reports is at least the CPU spent since', () => {
    const mark = processCpuMark();
    expect(processCpuMark()).toBe(mark);
    const until = performance.now() + 30;
    let x = 0;
    while (performance.now() < until) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    expect(processCpuMsSince(mark)).toBeGreaterThanOrEqual(25);
    expect(processCpuMark()).not.toBe(mark);
  });
});
