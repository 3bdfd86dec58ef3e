import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import { Rng } from '../../../src/common/rng.js';
import { Archive, binOf, DEFAULT_FEATURE_BINS, FeatureSpace, resolveFeatureSpace } from '../../../src/evolve/archive/index.js';
import { randomCandidate } from './helpers.js';

describe('feature bins', () => {
  it('default edges are the documented ones', () => {
    expect(DEFAULT_FEATURE_BINS.features).toEqual([
      { name: 'rescheduleCount', key: 'r', edges: [0.5, 2.5, 6.5, 15.5, 40.5] },
      { name: 'schedCpuMsPerCall', key: 'c', edges: [0.03, 0.05, 0.2, 1, 5] },
      { name: 'nodesSwitchedPerReschedule', key: 's', edges: [0.01, 1.01, 2.01, 4.01] },
    ]);
    expect(new FeatureSpace().cellCount).toBe(6 * 6 * 5);
  });

  it('rescheduleCount bins are 0 | 1-2 | 3-6 | 7-15 | 16-40 | 41+', () => {
    const edges = DEFAULT_FEATURE_BINS.features[0]!.edges;
    const bins = [0, 1, 2, 3, 6, 7, 15, 16, 40, 41, 1000].map((v) => binOf(edges, v));
    expect(bins).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
  });

  it('a value on an edge belongs to the bin above; beyond the ends to the end bins', () => {
    const edges = [1, 2, 3];
    expect(binOf(edges, 0.999)).toBe(0);
    expect(binOf(edges, 1)).toBe(1);
    expect(binOf(edges, 2)).toBe(2);
    expect(binOf(edges, 3)).toBe(3);
    expect(binOf(edges, -1e300)).toBe(0);
    expect(binOf(edges, -Infinity)).toBe(0);
    expect(binOf(edges, 1e300)).toBe(3);
    expect(binOf(edges, Infinity)).toBe(3);
  });

  it('NaN and missing features fall in bin 0; unknown features are ignored', () => {
    const space = new FeatureSpace();
    expect(space.cellOf({})).toBe('r0.c0.s0');
    expect(space.cellOf({ rescheduleCount: NaN, schedCpuMsPerCall: NaN, nodesSwitchedPerReschedule: NaN })).toBe('r0.c0.s0');
    expect(space.cellOf({ rescheduleCount: 3, other: 99 })).toBe('r2.c0.s0');
  });

  it('cellOf names one bin per feature with its key', () => {
    const space = new FeatureSpace();
    expect(space.cellOf({ rescheduleCount: 4, schedCpuMsPerCall: 0.04, nodesSwitchedPerReschedule: 0 })).toBe('r2.c1.s0');
    expect(space.cellOf({ rescheduleCount: 100, schedCpuMsPerCall: 50, nodesSwitchedPerReschedule: 8 })).toBe('r5.c5.s4');
    expect(space.binsOf({ rescheduleCount: 1, schedCpuMsPerCall: 0.3, nodesSwitchedPerReschedule: 1.5 })).toEqual([1, 3, 2]);
  });

  it('isCell accepts exactly the cells of the grid', () => {
    const space = new FeatureSpace();
    expect(space.isCell('r2.c1.s0')).toBe(true);
    expect(space.isCell('r5.c5.s4')).toBe(true);
    for (const bad of ['r6.c0.s0', 'r0.c0.s5', 'r0.c0', 'x0.c0.s0', 'r01.c0.s0', 'r-1.c0.s0', 'r0.c0.s0.t0', '']) {
      expect(space.isCell(bad)).toBe(false);
    }
  });

  it('a key defaults to the feature name', () => {
    const space = new FeatureSpace({ features: [{ name: 'load', edges: [1] }] });
    expect(space.cellOf({ load: 2 })).toBe('load1');
  });
});

describe('feature-space config validation', () => {
  const bad = (features: unknown): unknown => {
    try {
      resolveFeatureSpace({ features } as never);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('edges must be strictly increasing', () => {
    const e = bad([{ name: 'a', edges: [1, 1] }]);
    expect(e).toBeInstanceOf(InputError);
    expect((e as Error).message).toMatch(/features\.0\.edges\.1.*strictly increasing/);
    expect(bad([{ name: 'a', edges: [2, 1] }])).toBeInstanceOf(InputError);
  });

  it('rejects empty lists, non-finite edges, duplicate names and keys, bad keys and unknown fields', () => {
    expect(bad([])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a', edges: [] }])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a', edges: [1, Infinity] }])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a', edges: [NaN] }])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a', edges: [1] }, { name: 'a', key: 'b', edges: [1] }])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a', key: 'k', edges: [1] }, { name: 'b', key: 'k', edges: [1] }])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a', key: 'k1', edges: [1] }])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a-b', edges: [1] }])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a', edges: [1], extra: true }])).toBeInstanceOf(InputError);
    expect(bad([{ name: 'a', key: 'x', edges: [-1, 0, 1e6] }])).toBeUndefined();
  });
});

describe('bins do not drift', () => {
  it('the config and the cell of every probe are unchanged after many extreme inserts', () => {
    const archive = new Archive();
    const before = structuredClone(archive.space.config);
    const probes = [0, 0.5, 1, 2.5, 3, 6.5, 7, 15.5, 16, 40.5, 41, 1e6].flatMap((r) =>
      [0.005, 0.01, 0.05, 0.2, 1, 5, 100].map((c) => ({ rescheduleCount: r, schedCpuMsPerCall: c, nodesSwitchedPerReschedule: r / 4 })),
    );
    const cellsBefore = probes.map((p) => archive.space.cellOf(p));

    const rng = new Rng(7);
    for (let i = 0; i < 3000; i++) {
      const c = randomCandidate(rng, `c${i}`);
      const scale = rng.pick([1, 1e9, -1e9, 1e-9]);
      archive.consider({ ...c, features: Object.fromEntries(Object.entries(c.features).map(([k, v]) => [k, v * scale])) });
    }

    expect(archive.space.config).toEqual(before);
    expect(archive.space.config).toEqual(DEFAULT_FEATURE_BINS);
    expect(probes.map((p) => archive.space.cellOf(p))).toEqual(cellsBefore);
    // Every elite still sits in the cell its features map to.
    for (const e of archive.elites()) expect(archive.space.cellOf(e.features)).toBe(e.cell);
  });

  it('the stored config is a frozen copy: mutating the input later changes nothing', () => {
    const input = { features: [{ name: 'a', key: 'a', edges: [1, 2] }] };
    const space = new FeatureSpace(input);
    input.features[0]!.edges[0] = 100;
    expect(space.config.features[0]!.edges).toEqual([1, 2]);
    expect(Object.isFrozen(space.config.features[0]!.edges)).toBe(true);
    expect(() => (space.config.features[0]!.edges as number[]).push(3)).toThrow();
  });
});
