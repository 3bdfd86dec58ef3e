import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import { Rng } from '../../../src/common/rng.js';
import { Archive } from '../../../src/evolve/archive/index.js';
import { cand, randomCandidate } from './helpers.js';

const A = { rescheduleCount: 4, schedCpuMsPerCall: 0.04, nodesSwitchedPerReschedule: 0 }; // r2.c1.s0
const B = { rescheduleCount: 0, schedCpuMsPerCall: 0.5, nodesSwitchedPerReschedule: 3 }; // r0.c3.s3

describe('Archive.consider', () => {
  it('fills an empty cell, replaces only with strictly better fitness', () => {
    const archive = new Archive();
    expect(archive.consider(cand('a', 100, A))).toBe('new-cell');
    expect(archive.consider(cand('b', 120, A))).toBe('rejected');
    expect(archive.consider(cand('c', 90, A))).toBe('replaced');
    expect(archive.get('r2.c1.s0')?.id).toBe('c');
    expect(archive.consider(cand('d', 200, B))).toBe('new-cell');
    expect(archive.size).toBe(2);
    expect([...archive.hashes].sort()).toEqual(['h-c', 'h-d']);
    expect(archive.hasHash('h-a')).toBe(false);
  });

  it('on a tie the incumbent stays, so insertion order decides deterministically', () => {
    const first = new Archive();
    first.consider(cand('x', 50, A));
    expect(first.consider(cand('y', 50, A))).toBe('rejected');
    expect(first.get('r2.c1.s0')?.id).toBe('x');

    const second = new Archive();
    second.consider(cand('y', 50, A));
    second.consider(cand('x', 50, A));
    expect(second.get('r2.c1.s0')?.id).toBe('y');
  });

  it('rejects code it already holds, even with a better fitness or in another cell', () => {
    const archive = new Archive();
    archive.consider(cand('a', 100, A, 'same'));
    expect(archive.consider(cand('b', 10, A, 'same'))).toBe('rejected');
    expect(archive.consider(cand('c', 10, B, 'same'))).toBe('rejected');
    expect(archive.size).toBe(1);
  });

  it('a displaced hash may come back later', () => {
    const archive = new Archive();
    archive.consider(cand('a', 100, A, 'ha'));
    archive.consider(cand('b', 90, A, 'hb'));
    expect(archive.consider(cand('a2', 10, B, 'ha'))).toBe('new-cell');
  });

  it('throws on a candidate without a finite fitness, id or hash', () => {
    const archive = new Archive();
    expect(() => archive.consider(cand('a', NaN, A))).toThrow(RangeError);
    expect(() => archive.consider(cand('a', Infinity, A))).toThrow(RangeError);
    expect(() => archive.consider(cand('', 1, A))).toThrow(RangeError);
    expect(() => archive.consider(cand('a', 1, A, ''))).toThrow(RangeError);
    expect(archive.size).toBe(0);
  });

  it('stores a frozen copy, untouched by later changes to the caller object', () => {
    const archive = new Archive();
    const c = { id: 'a', codeHash: 'h', fitness: 5, features: { ...A }, extra: 'dropped' };
    archive.consider(c);
    c.features.rescheduleCount = 100;
    c.fitness = 1;
    const e = archive.get('r2.c1.s0')!;
    expect(e).toEqual({ id: 'a', codeHash: 'h', fitness: 5, features: A, cell: 'r2.c1.s0' });
    expect(Object.isFrozen(e) && Object.isFrozen(e.features)).toBe(true);
  });
});

describe('Archive best and elites', () => {
  it('elites are sorted by fitness then id; best is the first', () => {
    const archive = new Archive();
    archive.consider(cand('m', 30, { rescheduleCount: 0 }));
    archive.consider(cand('b', 20, { rescheduleCount: 1 }));
    archive.consider(cand('a', 20, { rescheduleCount: 3 }));
    archive.consider(cand('z', 10, { rescheduleCount: 8 }));
    expect(archive.elites().map((e) => e.id)).toEqual(['z', 'a', 'b', 'm']);
    expect(archive.best()?.id).toBe('z');
    expect(new Archive().best()).toBeUndefined();
    expect(new Archive().elites()).toEqual([]);
  });

  it('the order does not depend on insertion order', () => {
    const rng = new Rng(3);
    const cands = Array.from({ length: 300 }, (_, i) => randomCandidate(rng, `c${i}`)).map((c) => ({ ...c, codeHash: `h-${c.id}` }));
    const forward = new Archive();
    const backward = new Archive();
    for (const c of cands) forward.consider(c);
    for (const c of [...cands].reverse()) backward.consider(c);
    // Fitnesses are distinct, so each cell ends with the same elite either way.
    expect(backward.elites()).toEqual(forward.elites());
  });
});

describe('Archive serialise / restore', () => {
  it('round-trips through JSON, including non-finite features', () => {
    const rng = new Rng(11);
    const archive = new Archive();
    for (let i = 0; i < 400; i++) archive.consider(randomCandidate(rng, `c${i}`));
    archive.consider(cand('inf', 1, { rescheduleCount: Infinity, schedCpuMsPerCall: NaN }));
    const json = JSON.parse(JSON.stringify(archive));
    const restored = Archive.restore(json);
    expect(restored.size).toBe(archive.size);
    expect(restored.elites().map(({ features: _f, ...rest }) => rest)).toEqual(archive.elites().map(({ features: _f, ...rest }) => rest));
    expect(restored.space.config).toEqual(archive.space.config);
    expect(restored.hashes).toEqual(archive.hashes);
    expect(restored.get('r5.c0.s0')?.features.rescheduleCount).toBeNaN();
    expect(JSON.stringify(restored)).toBe(JSON.stringify(archive));
  });

  it('keeps a non-default feature space', () => {
    const archive = new Archive({ features: [{ name: 'load', key: 'l', edges: [1, 10] }] });
    archive.consider(cand('a', 1, { load: 5 }));
    const restored = Archive.restore(JSON.parse(JSON.stringify(archive)));
    expect(restored.get('l1')?.id).toBe('a');
    expect(restored.space.cellOf({ load: 50 })).toBe('l2');
  });

  it('rejects a corrupt checkpoint with an InputError', () => {
    const archive = new Archive();
    archive.consider(cand('a', 1, A));
    archive.consider(cand('b', 2, B));
    const good = archive.toJSON();
    const mutate = (f: (s: any) => void): unknown => {
      const s = structuredClone(good) as any;
      f(s);
      try {
        Archive.restore(s);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(mutate(() => {})).toBeUndefined();
    expect(mutate((s) => (s.version = 2))).toBeInstanceOf(InputError);
    expect(mutate((s) => (s.elites[0].cell = 'r9.c0.s0'))).toBeInstanceOf(InputError);
    expect(mutate((s) => (s.elites[1].cell = s.elites[0].cell))).toBeInstanceOf(InputError);
    expect(mutate((s) => (s.elites[1].codeHash = s.elites[0].codeHash))).toBeInstanceOf(InputError);
    expect(mutate((s) => (s.elites[0].fitness = null))).toBeInstanceOf(InputError);
    expect(mutate((s) => (s.features.features[0].edges = [2, 1]))).toBeInstanceOf(InputError);
  });
});
