import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PrefixMatch } from '../../../src/sim/kv/index.js';
import type { SparseCounts } from '../../../src/sim/kv/match-result.js';
import { DEFAULT_PREFILL_TUNING, type PrefillRouting, type PrefillTuning } from '../../../src/sim/mechanics.js';
import { SimNode } from '../../../src/sim/node.js';
import type { PrefillWork } from '../../../src/sim/perf/iteration-model.js';
import type { RequestState } from '../../../src/sim/request-state.js';
import { choosePrefill, type PrefillRouterState } from '../../../src/sim/routing/prefill.js';
import { choosePrefillScan } from '../../../src/sim/routing/prefill-scan.js';
import { placementOn, type PrefillPlacement } from '../../../src/sim/routing/prefix.js';
import { sparseView } from './sparse-view.js';

/**
 * The scanning router must pick exactly the node the reference picks
 * (choosePrefill over a placement on every accepting node), with the same
 * placement, for every router, on random node states. The states are drawn
 * from small sets of values so that equal scores, and scores equal up to
 * rounding (a wait just under or over the fetch time), are frequent: ties go
 * to the lowest node id in both.
 */

const ROUTINGS: PrefillRouting[] = ['predicted-ttft', 'cache-affinity', 'dynamo-kv', 'even-load', 'session'];

function engine(scale: number): { prefillTime(b: readonly PrefillWork[]): number; decodeTime(): number } {
  return {
    prefillTime: (batch) => batch.reduce((s, w) => s + scale * (0.01 + w.uncachedTokens * 1e-4 + w.cachedTokens * 1e-6 + w.restoredTokens * 3e-6), 0),
    decodeTime: () => 0,
  };
}
const ENGINES = [engine(1), engine(1.5)];

/**
 * A few holdings shared by many nodes: several large classes of equal
 * (gpu, local) counts, as while a prefix spreads over the cluster (some
 * nodes hold it, the rest not yet), which the wait index scores per class.
 */
const PATTERNS = [null, null, { local: 0.25, gpu: 0.25 }, { local: 0.6, gpu: 0 }, { local: 1, gpu: 0.6 }];

/** A share of the prompt: a few fixed values (equal counts on many nodes) or any. */
const share = fc.oneof(fc.constantFrom(0, 0.25, 0.6, 1), fc.double({ min: 0, max: 1, noNaN: true }));

const nodeState = fc.record({
  kind: fc.constantFrom('a', 'b'),
  engine: fc.nat({ max: 1 }),
  maxTokens: fc.constantFrom(8192, 4096),
  queued: fc.nat({ max: 3 }),
  running: fc.nat({ max: 2 }),
  busyFor: fc.oneof(fc.constantFrom(0, 0.05, 0.1, 0.30000000000000004), fc.double({ min: 0, max: 2, noNaN: true })),
  queuedSeconds: fc.oneof(fc.constantFrom(0, 0.1, 0.2, 0.3), fc.double({ min: 0, max: 3, noNaN: true })),
  activeBlocks: fc.nat({ max: 50 }),
  /** Holds a prefix of the prompt: none, or local and gpu counts as fractions of it. */
  holds: fc.oneof({ arbitrary: fc.constant(null), weight: 12 }, { arbitrary: fc.record({ local: share, gpu: share }), weight: 1 }),
  /** With `classes`: which of PATTERNS the node holds instead. */
  pattern: fc.nat({ max: PATTERNS.length - 1 }),
});
type NodeState = typeof nodeState extends fc.Arbitrary<infer T> ? T : never;

const scenario = fc.record({
  nodes: fc.oneof(fc.array(nodeState, { minLength: 1, maxLength: 40 }), fc.array(nodeState, { minLength: 40, maxLength: 90 })),
  accepting: fc.array(fc.boolean(), { minLength: 90, maxLength: 90 }),
  inputTokens: fc.integer({ min: 1, max: 40_000 }),
  poolShare: fc.double({ min: 0, max: 1, noNaN: true }),
  shared: fc.boolean(),
  /** One kind and engine model on every node (what the wait index covers). */
  uniform: fc.boolean(),
  /** Holdings from PATTERNS (a few large classes) rather than mostly none. */
  classes: fc.boolean(),
  now: fc.constantFrom(0, 10, 1234.5),
  /** A sparse view of the counts too (what the directory gives past 31 nodes), laid out by this seed. */
  sparse: fc.option(fc.nat()),
  routing: fc.constantFrom(...ROUTINGS),
  branch: fc.integer({ min: -1, max: 3 }),
  sticky: fc.option(fc.nat({ max: 45 })),
  tuning: fc.record({
    fetchExcessWeight: fc.constantFrom(0, 0.5, 1, 2),
    duplicateCopyPenalty: fc.constantFrom(0, 2e-5, 1e-3),
    affinityBalanceAbs: fc.constantFrom(0, 1, 32),
    affinityBalanceRel: fc.constantFrom(1, 1.1, 3),
    affinityMatch: fc.constantFrom(0, 0.2, 0.5),
  }),
});

function makeNode(id: number, s: NodeState, now: number, accepts: boolean): SimNode {
  const n = Object.create(SimNode.prototype) as SimNode;
  const fetchSeconds = (peer: number, host: number): number => (s.kind === 'a' ? 1e-6 : 2e-6) * (peer * 3 + host);
  Object.assign(n, {
    id,
    status: 'active',
    role: accepts ? 'P' : 'D',
    bothPhases: false,
    hw: { kind: s.kind, maxPrefillBatchTokens: s.maxTokens, fetchSeconds },
    engine: ENGINES[s.engine],
    placementScratch: null,
    prefillQueue: Array.from({ length: s.queued }, () => ({})),
    prefillRunning: Array.from({ length: s.running }, () => ({})),
    prefillBusyUntil: now + s.busyFor,
    queuedPredictedSeconds: s.queuedSeconds,
    activeBlocks: s.activeBlocks,
  });
  return n;
}

const plain = (p: PrefillPlacement): object => ({ ...p, node: p.node.id });

describe('choosePrefillScan', () => {
  it('picks the node and placement choosePrefill picks over a placement per node, for every router', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        const one = sc.nodes[0]!;
        const states = sc.uniform ? sc.nodes.map((s) => ({ ...s, kind: one.kind, engine: one.engine, maxTokens: one.maxTokens })) : sc.nodes;
        const all = states.map((s, id) => makeNode(id, s, sc.now, id === 0 || sc.accepting[id]! || sc.accepting[id + 1]!));
        const candidates = all.filter((n) => n.acceptsPrefill);
        const blocks = Math.ceil(sc.inputTokens / 512);
        const gpu = new Int32Array(all.length);
        const local = new Int32Array(all.length);
        sc.nodes.forEach((s, id) => {
          const holds = sc.classes ? PATTERNS[s.pattern] : s.holds;
          if (!holds) return;
          local[id] = Math.round(holds.local * blocks);
          gpu[id] = Math.round(holds.gpu * local[id]!);
        });
        const pool = Math.max(Math.round(sc.poolShare * blocks), ...local);
        const match = { gpu, local, pool, poolSource: new Int32Array(0), ideal: blocks } as PrefixMatch;
        if (sc.sparse !== null) match.sparse = sparseView(gpu, local, sc.sparse);
        const rs = { req: { inputTokens: sc.inputTokens, blocks: new Array<number>(blocks).fill(0), branch: sc.branch } } as unknown as RequestState;
        const tuning: PrefillTuning = { ...DEFAULT_PREFILL_TUNING, ...sc.tuning };
        const sessions = (): PrefillRouterState => ({ sessionNode: new Map(sc.sticky === null ? [] : [[sc.branch, sc.sticky]]) });

        const refState = sessions();
        const want = plain(choosePrefill(sc.routing, rs, candidates.map((n) => placementOn(n, rs, match, sc.shared)), sc.now, refState, tuning));
        const gotState = sessions();
        const got = plain(choosePrefillScan(sc.routing, rs, all, candidates, match, sc.shared, sc.now, gotState, tuning));
        expect(got).toEqual(want);
        expect([...gotState.sessionNode]).toEqual([...refState.sessionNode]);
      }),
      { numRuns: 3000, seed: 13 },
    );
  });

  it('keeps the wait index current as nodes start and end batches, queue, and change role between requests', () => {
    const step = fc.record({
      node: fc.nat({ max: 63 }),
      what: fc.constantFrom('queue', 'queue', 'start', 'end', 'route', 'route', 'role'),
      seconds: fc.oneof(fc.constantFrom(0, 0.1, 0.2), fc.double({ min: 0, max: 2, noNaN: true })),
      dt: fc.constantFrom(0, 0, 0.05, 0.3),
      routing: fc.constantFrom<PrefillRouting>('predicted-ttft', 'predicted-ttft', 'even-load'),
      pool: fc.nat({ max: 20 }),
      sparse: fc.option(fc.nat()),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 200 }), fc.boolean(), (steps, shared) => {
        let now = 0;
        const base: NodeState = { kind: 'a', engine: 0, maxTokens: 8192, queued: 0, running: 0, busyFor: 0, queuedSeconds: 0, activeBlocks: 0, holds: null, pattern: 0 };
        const all = Array.from({ length: 64 }, (_, id) => makeNode(id, base, now, id % 9 !== 0));
        const local = new Int32Array(64);
        const gpu = new Int32Array(64);
        // Two nodes hold a little more of the prompt than the rest; the others fetch from the pool.
        local[7] = gpu[7] = 2;
        local[30] = 1;
        // Busy, so that they do not always win: most choices are among the typical nodes.
        all[7]!.queuedPredictedSeconds = 4;
        all[30]!.queuedPredictedSeconds = 1;
        const rs = { req: { inputTokens: 20 * 512, blocks: new Array<number>(20).fill(0), branch: -1 } } as unknown as RequestState;
        // One view per seed, reused: its levels keep their stamps, so the classes' counts per word are reused (match-classes.ts) while nodes change.
        const views = new Map<number, SparseCounts>();
        for (const st of steps) {
          now += st.dt;
          const n = all[st.node]!;
          if (st.what === 'queue') n.queuedPredictedSeconds += st.seconds;
          else if (st.what === 'start') {
            n.prefillRunning = [{} as RequestState];
            n.prefillBusyUntil = now + st.seconds;
            n.queuedPredictedSeconds = Math.max(0, n.queuedPredictedSeconds - st.seconds);
          } else if (st.what === 'end') n.prefillRunning = [];
          else if (st.what === 'role') n.role = n.role === 'P' ? 'D' : 'P';
          else {
            // A batch that ended by now is over (the simulator ends it at prefillBusyUntil).
            for (const m of all) if (m.prefillRunning.length > 0 && m.prefillBusyUntil < now) m.prefillRunning = [];
            const candidates = all.filter((m) => m.acceptsPrefill);
            if (candidates.length === 0) continue;
            const match = { gpu, local, pool: Math.max(st.pool, 2), poolSource: new Int32Array(0), ideal: 20 } as PrefixMatch;
            if (st.sparse !== null) {
              const seed = st.sparse % 4;
              if (!views.has(seed)) views.set(seed, sparseView(gpu, local, seed));
              match.sparse = views.get(seed)!;
            }
            const want = plain(choosePrefill(st.routing, rs, candidates.map((m) => placementOn(m, rs, match, shared)), now, { sessionNode: new Map() }));
            const got = plain(choosePrefillScan(st.routing, rs, all, candidates, match, shared, now, { sessionNode: new Map() }));
            expect(got).toEqual(want);
          }
        }
      }),
      { numRuns: 400, seed: 7 },
    );
  });
});
