import { describe, expect, it } from 'vitest';
import { generateSpotTimeline, spotSchema } from '../../src/scenario/index.js';

const spec = spotSchema.parse({ seed: 3, losses: 12, fromMinute: 10, toMinute: 100, nodesPerLoss: [1, 3], downMinutes: [5, 30], maxDown: 4 });

/** Nodes down just after each change, in order. */
function downCounts(changes: ReturnType<typeof generateSpotTimeline>): number[] {
  const down = new Set<number>();
  return changes.map((c) => {
    if (c.event === 'down') {
      expect(down.has(c.node), `node ${c.node} down twice at ${c.at}`).toBe(false);
      down.add(c.node);
    } else {
      expect(down.has(c.node), `node ${c.node} up while up at ${c.at}`).toBe(true);
      down.delete(c.node);
    }
    return down.size;
  });
}

describe('spot preemption generator', () => {
  it('is fixed by its spec: same spec, same timeline; another seed, another one', () => {
    expect(generateSpotTimeline(spec, 9)).toEqual(generateSpotTimeline(spec, 9));
    expect(generateSpotTimeline({ ...spec, seed: 4 }, 9)).not.toEqual(generateSpotTimeline(spec, 9));
  });

  it('takes 1 to 3 nodes per loss for 5 to 30 minutes, within the window, never more than maxDown at once', () => {
    const changes = generateSpotTimeline(spec, 9);
    const downs = changes.filter((c) => c.event === 'down');
    const byLoss = new Map<number, number>();
    for (const d of downs) byLoss.set(d.at, (byLoss.get(d.at) ?? 0) + 1);
    expect(byLoss.size).toBeGreaterThanOrEqual(6);
    for (const n of byLoss.values()) expect(n).toBeLessThanOrEqual(3);
    for (const d of downs) {
      expect(d.at).toBeGreaterThanOrEqual(600);
      expect(d.at).toBeLessThanOrEqual(6000);
      const up = changes.find((c) => c.node === d.node && c.event === 'up' && c.at > d.at)!;
      expect(up.at - d.at).toBeGreaterThanOrEqual(300);
      expect(up.at - d.at).toBeLessThanOrEqual(1800);
    }
    expect(Math.max(...downCounts(changes))).toBeLessThanOrEqual(4);
    expect(Math.max(...downCounts(changes))).toBeGreaterThan(1);
    // Time order, as the simulator's membership queue expects.
    for (let i = 1; i < changes.length; i++) expect(changes[i]!.at).toBeGreaterThanOrEqual(changes[i - 1]!.at);
  });
});
