import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { classifyFailure, CycleFailure, nextDelayMs, resolveControlPlaneConfig } from '../../src/controlplane/index.js';
import { InfrastructureError } from '../../src/common/errors.js';

describe('control plane settings', () => {
  it('defaults: 10 min window after 2 min warm-up, 5 min cycles, 2% margin, structural mutator', () => {
    const c = resolveControlPlaneConfig({});
    expect(c).toMatchObject({ windowMinutes: 10, warmupMinutes: 2, cycleMaxMinutes: 5, margin: 0.02, mutator: 'structural', islands: 4, stagingDir: 'policies/staging' });
    expect(c.threads).toBeGreaterThanOrEqual(1);
    expect(c.seedsDir).toMatch(/seeds$/);
  });

  it('bad values are InputErrors naming the field', () => {
    for (const [input, field] of [
      [{ margin: -0.1 }, 'margin'],
      [{ cycleMaxMinutes: 0 }, 'cycleMaxMinutes'],
      [{ exploitRatio: 0.9, exploreRatio: 0.2 }, 'exploreRatio'],
      [{ nope: 1 }, ''],
    ] as const) {
      expect(() => resolveControlPlaneConfig(input)).toThrow(InputError);
      if (field) expect(() => resolveControlPlaneConfig(input)).toThrow(new RegExp(field));
    }
  });
});

describe('after a cycle', () => {
  const config = { intervalSeconds: 2, backoffSeconds: 5, maxBackoffSeconds: 60 };
  it('waits the interval after a cycle that ran, a fixed backoff after a failure not worth retrying, and doubles it for infrastructure failures', () => {
    expect(nextDelayMs({ status: 'finished', failure: null }, 0, config)).toBe(2000);
    expect(nextDelayMs({ status: 'interrupted', failure: null }, 0, config)).toBe(2000);
    const snapshot = { status: 'failed' as const, failure: { kind: 'snapshot' as const, retryable: false } };
    expect([1, 2, 5].map((n) => nextDelayMs(snapshot, n, config))).toEqual([5000, 5000, 5000]);
    const infra = { status: 'failed' as const, failure: { kind: 'infrastructure' as const, retryable: true } };
    expect([1, 2, 3, 4, 5, 40].map((n) => nextDelayMs(infra, n, config))).toEqual([5000, 10000, 20000, 40000, 60000, 60000]);
  });

  it('sorts failures by class, not by message', () => {
    expect(classifyFailure(new InfrastructureError('disk full'))).toMatchObject({ kind: 'infrastructure', retryable: true });
    expect(classifyFailure(new InputError('bad', { field: 'x' }))).toMatchObject({ kind: 'candidates', retryable: false });
    expect(classifyFailure(new CycleFailure('snapshot', 'empty', false))).toMatchObject({ kind: 'snapshot', retryable: false, message: 'empty' });
    expect(classifyFailure(new TypeError('x is undefined'))).toMatchObject({ kind: 'internal', retryable: false, message: 'internal error: x is undefined' });
  });
});
