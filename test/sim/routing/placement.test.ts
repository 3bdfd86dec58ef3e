import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import type { PrefixMatch } from '../../../src/sim/kv/index.js';
import { placementOn, type PrefillPlacement } from '../../../src/sim/routing/prefix.js';
import type { SimNode } from '../../../src/sim/node.js';
import type { RequestState } from '../../../src/sim/request-state.js';
import type { PrefillWork } from '../../../src/sim/perf/iteration-model.js';

/** An engine whose prefill time is a distinct function of its work, counting the questions it is asked. */
function engine(scale: number): { calls: number; prefillTime(b: readonly PrefillWork[]): number; decodeTime(): number } {
  return {
    calls: 0,
    prefillTime(batch) {
      this.calls++;
      return batch.reduce((s, w) => s + scale * (w.uncachedTokens * 1e-4 + w.cachedTokens * 1e-6 + w.restoredTokens * 3e-6), 0);
    },
    decodeTime: () => 0,
  };
}

function node(id: number, kind: string, eng: ReturnType<typeof engine>, maxTokens: number): SimNode {
  const hw = { kind, maxPrefillBatchTokens: maxTokens, fetchSeconds: (peer: number, host: number) => (kind === 'a' ? 1e-5 : 2e-5) * (peer * 3 + host) };
  return { id, hw, engine: eng, placementScratch: null } as unknown as SimNode;
}

const plain = (p: PrefillPlacement): object => ({ ...p, node: p.node.id });

describe('placementOn', () => {
  it('gives every node what a fresh evaluation gives, reusing an answer only for the same kind, engine and prefix', () => {
    const rng = new Rng(3);
    const engines = [engine(1), engine(1.5)];
    const nodes = Array.from({ length: 40 }, (_, id) => node(id, rng.chance(0.7) ? 'a' : 'b', rng.pick(engines), rng.chance(0.8) ? 8192 : 4096));
    for (let trial = 0; trial < 60; trial++) {
      const rs = { req: { inputTokens: rng.int(1, 40_000) } } as unknown as RequestState;
      const blocks = Math.ceil(rs.req.inputTokens / 16);
      // Most nodes hold none of the prompt, some a prefix; the pool may reach further.
      const gpu = new Int32Array(nodes.length);
      const local = new Int32Array(nodes.length);
      for (let n = 0; n < nodes.length; n++) {
        if (rng.chance(0.8)) continue;
        local[n] = rng.int(0, blocks);
        gpu[n] = rng.int(0, local[n]!);
      }
      const match = { gpu, local, pool: rng.int(0, blocks), poolSource: new Int32Array(0), ideal: blocks } as PrefixMatch;
      const shared = rng.chance(0.5);
      const got = nodes.map((n) => plain(placementOn(n, rs, match, shared)));
      // Fresh: a new match object per call, so no answer can be reused.
      const want = nodes.map((n) => plain(placementOn(n, rs, { ...match }, shared)));
      expect(got).toEqual(want);
    }
  });

  it('asks the engine once for a run of nodes with the same question, and again when the question changes', () => {
    const e1 = engine(1);
    const e2 = engine(1);
    const nodes = [node(0, 'a', e1, 8192), node(1, 'a', e1, 8192), node(2, 'a', e2, 8192), node(3, 'b', e2, 8192), node(4, 'b', e2, 8192)];
    const rs = { req: { inputTokens: 1000 } } as unknown as RequestState;
    const match = { gpu: new Int32Array(5), local: new Int32Array([0, 0, 0, 0, 3]), pool: 0, poolSource: new Int32Array(0), ideal: 0 } as PrefixMatch;
    const placements = nodes.map((n) => placementOn(n, rs, match, false));
    // Node 1 reuses node 0's answer; node 2 has another engine, node 3 another kind, node 4 another prefix.
    expect([e1.calls, e2.calls]).toEqual([1, 3]);
    expect(placements[4]!.hitBlocks).toBe(3);
    expect(placements[0]!.predictedPrefill).toBe(placements[1]!.predictedPrefill);
  });
});
