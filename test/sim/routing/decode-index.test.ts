import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimNode } from '../../../src/sim/node.js';
import type { RequestState } from '../../../src/sim/request-state.js';
import { chooseDecode, INDEX_FROM, packDecode, type DecodeRouterState } from '../../../src/sim/routing/decode.js';
import { MinTree } from '../../../src/sim/routing/min-tree.js';

/**
 * Decode routing from the decode index must pick the node the pass over the
 * accepting nodes picked (the code it replaced, kept here as the reference),
 * after any sequence of joins, completions, transfers and acceptance changes
 * between hand-offs. Loads are small and batch limits low so that ties and
 * full nodes are frequent. Most clusters have enough decode nodes for the
 * index (INDEX_FROM); small ones check the pass that replaces it there.
 */

/** The replaced least-loaded pass: the first lowest decode load in id order. */
function leastLoadedScan(candidates: readonly SimNode[]): SimNode {
  let best = candidates[0]!;
  for (const n of candidates) if (n.decodeLoad < best.decodeLoad) best = n;
  return best;
}

/** The replaced round-robin step. */
function roundRobinScan(candidates: readonly SimNode[], state: DecodeRouterState): SimNode {
  const after = candidates.find((n) => n.id >= state.nextRoundRobin) ?? candidates[0]!;
  state.nextRoundRobin = after.id + 1;
  return after;
}

/** The replaced packing pass. */
function packScan(candidates: readonly SimNode[], kind: string): SimNode {
  const same = candidates.filter((n) => n.hw.kind === kind);
  const pool = same.length > 0 ? same : candidates;
  let best: SimNode | undefined;
  for (const n of pool) {
    if (n.decodeLoad >= n.hw.maxDecodeBatch) continue;
    if (!best || n.decodeLoad > best.decodeLoad) best = n;
  }
  if (best) return best;
  let least = pool[0]!;
  for (const n of pool) if (n.decodeLoad < least.decodeLoad) least = n;
  return least;
}

function makeNode(id: number, kind: string, maxDecodeBatch: number): SimNode {
  const n = Object.create(SimNode.prototype) as SimNode;
  Object.assign(n, {
    id,
    statusNow: 'active',
    roleNow: id % 6 === 0 ? 'P' : 'D',
    both: false,
    hw: { kind, maxDecodeBatch },
    decoding: new Map<number, RequestState>(),
    inbound: 0,
    decodeWatch: null,
    waitWatch: null,
  });
  return n;
}

const request = (id: number): RequestState => ({ req: { id } }) as unknown as RequestState;

describe('decode index', () => {
  it('routes as the pass over the accepting nodes did, after random load and acceptance changes', () => {
    const step = fc.record({
      node: fc.nat({ max: 119 }),
      what: fc.constantFrom('join', 'join', 'join', 'join', 'leave', 'leave', 'inbound', 'arrived', 'status', 'role', 'both', 'route', 'route'),
      status: fc.constantFrom<SimNode['status']>('active', 'active', 'active', 'active', 'switching', 'down', 'restarting'),
      kind: fc.constantFrom('a', 'b', 'c'),
      routing: fc.constantFrom<'least-loaded' | 'round-robin'>('least-loaded', 'round-robin'),
    });
    let indexed = 0;
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 64, max: 120 })), fc.array(step, { minLength: 100, maxLength: 400 }), (size, steps) => {
        const nodes = Array.from({ length: size }, (_, id) => makeNode(id, id % 4 === 3 ? 'b' : 'a', 2 + (id % 3)));
        const ref: DecodeRouterState = { nextRoundRobin: 0 };
        const got: DecodeRouterState = { nextRoundRobin: 0 };
        let nextId = 0;
        for (const st of steps) {
          const n = nodes[st.node % size]!;
          switch (st.what) {
            case 'join':
              n.addDecodeRequest(request(nextId++));
              break;
            case 'leave': {
              const first = n.decodeRequests.keys().next();
              if (!first.done) n.takeDecodeRequest(first.value);
              break;
            }
            case 'inbound':
              n.inboundTransfers++;
              break;
            case 'arrived':
              if (n.inboundTransfers > 0) n.inboundTransfers--;
              break;
            case 'status':
              n.status = st.status;
              break;
            case 'role':
              n.role = n.role === 'P' ? 'D' : 'P';
              break;
            case 'both':
              n.bothPhases = !n.bothPhases;
              break;
            case 'route': {
              const candidates = nodes.filter((m) => m.acceptsDecode);
              if (candidates.length === 0) break;
              if (candidates.length >= INDEX_FROM) indexed++;
              const want = st.routing === 'round-robin' ? roundRobinScan(candidates, ref) : leastLoadedScan(candidates);
              expect(chooseDecode(st.routing, nodes, candidates, got).id).toBe(want.id);
              expect(got.nextRoundRobin).toBe(ref.nextRoundRobin);
              expect(packDecode(nodes, candidates, st.kind).id).toBe(packScan(candidates, st.kind).id);
              // A hand-off adds load to the chosen node, as the simulator does.
              want.inboundTransfers++;
              break;
            }
          }
        }
      }),
      { numRuns: 400, seed: 13 },
    );
    // Most hand-offs went through the index, not the pass below INDEX_FROM.
    expect(indexed).toBeGreaterThan(3000);
  });
});

describe('MinTree.first', () => {
  it('is the lowest id holding the smallest key, or -1 when empty', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: 40 }), fc.oneof(fc.constantFrom(Infinity, 0, -0, 1, -3), fc.integer({ min: -5, max: 5 }))), { maxLength: 120 }), fc.integer({ min: 1, max: 41 }), (sets, n) => {
        const tree = new MinTree(n);
        const keys = new Array<number>(n).fill(Infinity);
        for (const [id, key] of sets) {
          if (id >= n) continue;
          tree.set(id, key);
          keys[id] = key;
          const min = Math.min(...keys);
          expect(tree.first()).toBe(min === Infinity ? -1 : keys.indexOf(min));
          expect(tree.min === min).toBe(true);
        }
      }),
      { numRuns: 500, seed: 13 },
    );
  });
});
