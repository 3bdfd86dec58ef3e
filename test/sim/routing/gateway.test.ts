import { describe, expect, it } from 'vitest';
import type { PrefixMatch } from '../../../src/sim/kv/index.js';
import { DEFAULT_PREFILL_TUNING, MECHANICS_PRESETS, parseMechanics } from '../../../src/sim/mechanics.js';
import { SimNode } from '../../../src/sim/node.js';
import type { RequestState } from '../../../src/sim/request-state.js';
import { gatewayDone, gatewayRouted, type GatewayState } from '../../../src/sim/routing/cache-aware.js';
import { GatewayTree } from '../../../src/sim/routing/gateway-tree.js';
import { newPrefillRouterState, type PrefillRouterState } from '../../../src/sim/routing/prefill.js';
import { choosePrefillScan } from '../../../src/sim/routing/prefill-scan.js';

/**
 * cache-affinity as the SGLang model gateway runs it (issue #17): its own tree
 * of what it sent, not the workers' caches; its load count of requests in
 * flight end to end; the smallest tree when nothing matches. It is mechanics
 * affinityView 'gateway' (off in every preset); the default, 'cache', keeps
 * routing on the nodes' caches and queues.
 */

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

function node(id: number, queued = 0): SimNode {
  const n = Object.create(SimNode.prototype) as SimNode;
  Object.assign(n, {
    id,
    status: 'active',
    role: 'P',
    bothPhases: false,
    hw: { kind: 'a', maxPrefillBatchTokens: 16_384, fetchSeconds: () => 0 },
    engine: { prefillTime: () => 0.1, decodeTime: () => 0.02 },
    placementScratch: null,
    prefillQueue: Array.from({ length: queued }, () => ({})),
    prefillRunning: [],
    prefillBusyUntil: 0,
    queuedPredictedSeconds: 0,
    activeBlocks: 0,
  });
  return n;
}

function request(blocks: number[], branch = 0): RequestState {
  return { req: { blocks, inputTokens: blocks.length * 512, branch }, gatewayNode: -1 } as unknown as RequestState;
}

/** What the workers' caches hold: `local[i]` leading blocks on node i. */
function match(local: number[]): PrefixMatch {
  return { gpu: Int32Array.from(local), local: Int32Array.from(local), pool: Math.max(0, ...local), poolSource: new Int32Array(0), ideal: 0 } as PrefixMatch;
}

function route(nodes: SimNode[], rs: RequestState, m: PrefixMatch, state: PrefillRouterState, now = 1) {
  const chosen = choosePrefillScan('cache-affinity', rs, nodes, nodes, m, false, now, state, DEFAULT_PREFILL_TUNING);
  // As routePrefill does: the gateway (if any) counts it, the node queues it.
  if (state.gateway) gatewayRouted(state.gateway, rs, chosen.node.id);
  chosen.node.prefillQueue.push(rs);
  return chosen;
}

describe('GatewayTree', () => {
  it('matches the deepest prefix any tenant was sent, and forgets least recently used leaves on its timer', () => {
    const tree = new GatewayTree(3, 10);
    tree.insert([1, 2, 3], 0, 0);
    expect(tree.prefixMatch([1, 2, 3, 4], () => true, 1)).toEqual({ depth: 3, tenant: 0 });
    expect(tree.prefixMatch([1, 2, 3], (t) => t !== 0, 1)).toEqual({ depth: 0, tenant: -1 });
    tree.insert([1, 4], 0, 5); // block 1 touched at 5; blocks 2 and 3 last seen at 1
    expect(tree.size(0)).toBe(4);
    tree.maintain(9.9); // not yet due
    expect(tree.size(0)).toBe(4);
    tree.maintain(10); // over the limit by one: the deepest of the oldest (block 3) goes
    expect(tree.size(0)).toBe(3);
    expect(tree.prefixMatch([1, 2, 3], () => true, 11)).toEqual({ depth: 2, tenant: 0 });
    expect(tree.prefixMatch([1, 4], () => true, 11)).toEqual({ depth: 2, tenant: 0 });
  });
});

/** Router state with the switch on (affinityView 'gateway'), as the simulator starts it. */
function gatewayState(): PrefillRouterState & { gateway: GatewayState } {
  return newPrefillRouterState(parseMechanics('sglang-pd,affinityView=gateway').affinityView) as PrefillRouterState & { gateway: GatewayState };
}

describe('cache-affinity (SGLang gateway, affinityView gateway)', () => {
  it('keeps sending a branch to the node it sent it to, although that node has evicted its copy', () => {
    const nodes = [node(0), node(1)];
    const state = gatewayState();
    const first = route(nodes, request(range(0, 20)), match([0, 0]), state);
    expect(first.node.id).toBe(0);
    nodes[0]!.prefillQueue.length = 3; // node 0 still has work; node 1 is idle
    // Node 0's cache lost the prefix (local 0 everywhere): the gateway does not know it.
    const next = route(nodes, request(range(0, 24)), match([0, 0]), state);
    expect(next.node.id).toBe(0);
    expect(next.hitBlocks).toBe(0); // recomputed there: the reuse is lost
  });

  it('funnels requests sharing a prefix onto one node before its cache holds any of it (a hot spot)', () => {
    const nodes = [node(0), node(1), node(2)];
    const state = gatewayState();
    // A parent and its sub-agents, all arriving before the first is prefilled: no cache holds the prefix yet.
    const chosen = range(0, 10).map((i) => route(nodes, request([...range(0, 40), 1000 + i], 0), match([0, 0, 0]), state).node.id);
    expect(chosen).toEqual(new Array(10).fill(0));
    expect(nodes.map((n) => n.prefillQueue.length)).toEqual([10, 0, 0]);
  });

  it('counts a request on its prefill node until its response ends, and balances on that count', () => {
    const nodes = [node(0), node(1)];
    const state = gatewayState();
    const decoding = range(0, 40).map((i) => request([5000 + i]));
    // 40 requests prefilled on node 0 and now decoding: none is in its prefill queue any more.
    for (const rs of decoding) gatewayRouted(state.gateway, rs, 0);
    expect(state.gateway.load).toEqual([40]);
    state.gateway.tree.insert(range(0, 20), 0, 0);
    // max - min = 40 > 32 and 40 > 0 * 1.1: imbalanced, the least loaded node takes it despite node 0's match.
    const rs = request(range(0, 22));
    expect(route(nodes, rs, match([20, 0]), state).node.id).toBe(1);
    expect(state.gateway.tree.prefixMatch(range(0, 22), (t) => t === 1, 2)).toEqual({ depth: 22, tenant: 1 });
    for (const d of decoding.slice(0, 10)) gatewayDone(state.gateway, d);
    expect(state.gateway.load).toEqual([30, 1]);
    // Moved to another node (its node stopped prefilling): it counts there, once.
    gatewayRouted(state.gateway, rs, 0);
    expect(state.gateway.load).toEqual([31, 0]);
  });

  it('sends a request nothing matches to the node with the smallest tree, not the least loaded one', () => {
    const nodes = [node(0), node(1, 2)];
    const state = gatewayState();
    state.gateway.tree.insert(range(0, 100), 0, 0);
    expect(route(nodes, request(range(500, 10)), match([0, 0]), state).node.id).toBe(1);
  });

  it('forgets what its own size limit prunes: the branch goes to the smallest tree, away from the node that still holds it', () => {
    const nodes = [node(0), node(1)];
    const tree = new GatewayTree(20, 60);
    const state: PrefillRouterState = { ...gatewayState(), gateway: { tree, load: [] } };
    tree.insert(range(0, 20), 0, 1); // branch A on node 0
    tree.insert(range(100, 10), 1, 2); // branch B on node 1
    tree.insert(range(300, 16), 0, 4); // branch D on node 0: 36 blocks, over the limit
    // At t = 60 node 0's tree is cut to 20 blocks, the oldest (A's) deepest first: A keeps 4.
    const back = route(nodes, request(range(0, 22)), match([20, 0]), state, 61);
    expect(tree.size(0)).toBe(20);
    // 4 of 22 blocks match: the smallest tree (node 1, 10 blocks) takes it, although node 0's cache holds 20.
    expect(back.node.id).toBe(1);
    expect(back.hitBlocks).toBe(0);
  });
});

describe('cache-affinity by default (affinityView cache)', () => {
  it('is off in every preset and parses as an override', () => {
    for (const m of Object.values(MECHANICS_PRESETS)) expect(m.affinityView).toBe('cache');
    expect(parseMechanics('sglang-pd').affinityView).toBe('cache');
    expect(parseMechanics('sglang-pd,affinityView=gateway').affinityView).toBe('gateway');
    expect(() => parseMechanics('sglang-pd,affinityView=tree')).toThrow(/affinityView/);
    expect(newPrefillRouterState('cache').gateway).toBeUndefined();
  });

  it('routes on the nodes\' caches and queues: no funnel before a cache holds the prefix, least loaded once it is evicted', () => {
    const nodes = [node(0), node(1), node(2)];
    const state = newPrefillRouterState(parseMechanics('sglang-pd').affinityView);
    // The gateway view's hot-spot case: nothing is cached yet, so each request goes to the least loaded node.
    const chosen = range(0, 10).map((i) => route(nodes, request([...range(0, 40), 1000 + i], 0), match([0, 0, 0]), state).node.id);
    expect(chosen).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
    expect(nodes.map((n) => n.prefillQueue.length)).toEqual([4, 3, 3]);
    // A node whose cache holds the prompt wins it on cache...
    expect(route(nodes, request(range(0, 20)), match([0, 20, 0]), state).node.id).toBe(1);
    // ...and once the copy is evicted (local 0 everywhere) the least loaded node takes it: no memory of where it was sent.
    expect(route(nodes, request(range(0, 24)), match([0, 0, 0]), state).node.id).toBe(2);
    expect(state.gateway).toBeUndefined();
  });
});
