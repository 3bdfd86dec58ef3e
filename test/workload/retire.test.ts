import { describe, expect, it } from 'vitest';
import { createPresetSource, loadWorkloadPreset } from '../../src/workload/index.js';
import { runNominal } from '../../src/workload/nominal.js';
import type { SimRequest, WorkloadSource } from '../../src/workload/types.js';

/**
 * The preset source's promise (WorkloadSource.takeRetired): an id it retires
 * is named by no later request. The simulator frees the KV room of retired
 * ids, so a broken promise would change a run's results (a block forgotten
 * as "ever produced"); here it is checked directly, request by request.
 */
function check(presetName: string, agents: number, minutes: number): { named: number; retired: number; requests: number } {
  const inner = createPresetSource(loadWorkloadPreset(presetName), { seed: 5, agents });
  const retired = new Set<number>();
  const named = new Set<number>();
  const violations: string[] = [];
  let requests = 0;
  const source: WorkloadSource = {
    name: inner.name,
    model: inner.model,
    start: () => inner.start(),
    onComplete: (id, now) => inner.onComplete(id, now),
    onWake: (token, now) => inner.onWake(token, now),
    takeRetired: () => {
      const ranges = inner.takeRetired!();
      for (const [first, count] of ranges) {
        for (let k = 0; k < count; k++) {
          if (retired.has(first + k)) violations.push(`id ${first + k} retired twice`);
          retired.add(first + k);
        }
      }
      return ranges;
    },
  };
  const see = (request: SimRequest, list: readonly number[]) => {
    for (const b of list) {
      if (retired.has(b) && violations.length < 5) violations.push(`request ${request.id} names retired id ${b}`);
      named.add(b);
    }
  };
  runNominal(source, minutes * 60, {
    onArrive: (request) => {
      requests++;
      see(request, request.blocks);
      see(request, request.producedBlocks);
    },
  });
  expect(violations).toEqual([]);
  let namedAndRetired = 0;
  for (const b of named) if (retired.has(b)) namedAndRetired++;
  return { named: named.size, retired: namedAndRetired, requests };
}

describe('preset sources retire the ids of ended agents', () => {
  it('cc: no request names a retired id, and a large share of the named ids is retired by the end', () => {
    const r = check('cc', 24, 90);
    expect(r.requests).toBeGreaterThan(1000);
    expect(r.retired / r.named).toBeGreaterThan(0.3);
  });

  it('osworld (task prefixes shared by four agents, an observation window): the same', () => {
    const r = check('osworld', 16, 60);
    expect(r.requests).toBeGreaterThan(200);
    expect(r.retired / r.named).toBeGreaterThan(0.3);
  });

  it('shifting (kinds change over hours, sub-agents, forks): the same', () => {
    const r = check('shifting', 24, 120);
    expect(r.requests).toBeGreaterThan(1000);
    expect(r.retired / r.named).toBeGreaterThan(0.3);
  });
});
