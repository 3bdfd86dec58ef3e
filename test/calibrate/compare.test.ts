import { describe, expect, it } from 'vitest';
import { checkBestSplit, describeTarget, meetsTarget, relError } from '../../src/calibrate/index.js';

const rule = { maxNodesAway: 1, maxThroughputGap: 0.02 };

describe('relative error', () => {
  it('is signed against a point value', () => {
    expect(relError(11, 10)).toBeCloseTo(0.1, 12);
    expect(relError(9, 10)).toBeCloseTo(-0.1, 12);
    expect(relError(5, -10)).toBeCloseTo(1.5, 12);
    expect(relError(10, 10)).toBe(0);
  });

  it('is 0 inside a range and measured from the nearest bound outside it', () => {
    expect(relError(1.5, { min: 0.7, max: 2.2 })).toBe(0);
    expect(relError(0.7, { min: 0.7, max: 2.2 })).toBe(0);
    expect(relError(0.35, { min: 0.7, max: 2.2 })).toBeCloseTo(-0.5, 12);
    expect(relError(3.3, { min: 0.7, max: 2.2 })).toBeCloseTo(0.5, 12);
  });

  it('is null with nothing to compare', () => {
    expect(relError(null, 5)).toBeNull();
    expect(relError(Number.NaN, 5)).toBeNull();
    expect(relError(1, 0)).toBeNull();
    expect(relError(0, 0)).toBe(0);
    expect(relError(-1, { min: 0, max: 7 })).toBeNull();
  });
});

describe('targets', () => {
  it('checks relative and absolute tolerances, and ranges', () => {
    expect(meetsTarget(10.9, 10, { rel: 0.1 })).toBe(true);
    expect(meetsTarget(11, 10, { rel: 0.1 })).toBe(true);
    expect(meetsTarget(11.01, 10, { rel: 0.1 })).toBe(false);
    expect(meetsTarget(8.99, 10, { rel: 0.1 })).toBe(false);
    expect(meetsTarget(1.5, 2.4, { abs: 1 })).toBe(true);
    expect(meetsTarget(1.3, 2.4, { abs: 1 })).toBe(false);
    expect(meetsTarget(3.5, 2.4, { abs: 1 })).toBe(false);
    expect(meetsTarget(1, { min: 0.7, max: 2.2 }, undefined)).toBe(true);
    expect(meetsTarget(2.3, { min: 0.7, max: 2.2 }, undefined)).toBe(false);
  });

  it('judges nothing without a target or a simulated value', () => {
    expect(meetsTarget(100, 1, undefined)).toBeNull();
    expect(meetsTarget(null, 1, { rel: 0.1 })).toBeNull();
    expect(meetsTarget(null, { min: 0, max: 1 }, undefined)).toBeNull();
  });

  it('describes targets in words', () => {
    expect(describeTarget(1, { rel: 0.25 })).toBe('±25%');
    expect(describeTarget(1, { abs: 1 }, ' pp')).toBe('±1 pp');
    expect(describeTarget({ min: 0, max: 1 }, undefined)).toBe('in range');
    expect(describeTarget(1, undefined)).toBe('-');
  });
});

describe('best split', () => {
  const sweep = (values: number[]) => Object.fromEntries(values.map((v, i) => [`${i + 1}P${8 - i}D`, v]));

  it('passes when the simulated best is the published one', () => {
    const c = checkBestSplit(sweep([5, 9, 8, 7, 6, 5, 4, 3]), '2P7D', rule);
    expect(c).toEqual({ simulatedBest: '2P7D', ok: true, nodesAway: 0, throughputGap: 0 });
  });

  it('passes one node away when the published split is within 2% of the best', () => {
    const c = checkBestSplit(sweep([5, 9, 8.83, 7, 6, 5, 4, 3]), '3P6D', rule);
    expect(c.simulatedBest).toBe('2P7D');
    expect(c.nodesAway).toBe(1);
    expect(c.throughputGap).toBeCloseTo(0.0189, 3);
    expect(c.ok).toBe(true);
    expect(checkBestSplit(sweep([5, 9, 8.82, 7, 6, 5, 4, 3]), '3P6D', rule).ok).toBe(true);
  });

  it('fails one node away when the published split is more than 2% below the best', () => {
    const c = checkBestSplit(sweep([5, 9, 8.7, 7, 6, 5, 4, 3]), '3P6D', rule);
    expect(c.ok).toBe(false);
    expect(c.throughputGap).toBeCloseTo(1 - 8.7 / 9, 12);
  });

  it('fails two nodes away even within 2%', () => {
    const c = checkBestSplit(sweep([5, 9, 8.99, 8.95, 6, 5, 4, 3]), '4P5D', rule);
    expect(c.simulatedBest).toBe('2P7D');
    expect(c.nodesAway).toBe(2);
    expect(c.ok).toBe(false);
  });

  it('fails when the published split was not run, and keeps the first split on a tie', () => {
    const c = checkBestSplit({ '1P8D': 3, '2P7D': 4 }, '3P6D', rule);
    expect(c).toMatchObject({ simulatedBest: '2P7D', ok: false, throughputGap: null });
    expect(checkBestSplit({ '3P6D': 5, '4P5D': 5 }, '4P5D', rule)).toMatchObject({ simulatedBest: '3P6D', ok: true, throughputGap: 0 });
    expect(() => checkBestSplit({}, '4P5D', rule)).toThrow(RangeError);
  });
});
