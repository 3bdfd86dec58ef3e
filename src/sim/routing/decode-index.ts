import type { SimNode } from '../node.js';
import { MinTree } from './min-tree.js';
import { currentIndex, NodeIndex } from './node-index.js';

/** The two orders decode routing asks for, over one set of nodes. */
interface Trees {
  /** Keyed by decode load: the least loaded node (lowest id on ties) is `least.first()`. */
  readonly least: MinTree;
  /** Keyed by minus the decode load, for nodes below their batch limit: the most loaded node with room is `room.first()`. */
  readonly room: MinTree;
}

/**
 * The nodes accepting decode by their decode load (decodeRequests.size +
 * inboundTransfers), over the whole cluster and per node kind, so that
 * decode routing finds the least loaded node, or while learning the most
 * loaded one with room, in O(log n) instead of a pass over the decode nodes
 * per hand-off. Nodes that do not accept decode are absent (+Infinity). A
 * node's entry is refreshed when its load changes (SimNode's decode setters
 * mark it) or, for all nodes, when any node's acceptance changes.
 */
export class DecodeIndex extends NodeIndex {
  readonly all: Trees;
  private readonly kinds = new Map<string, Trees>();

  constructor(nodes: readonly SimNode[]) {
    super(nodes);
    this.all = trees(nodes.length);
    for (const n of nodes) {
      if (!this.kinds.has(n.hw.kind)) this.kinds.set(n.hw.kind, trees(nodes.length));
      n.decodeWatch = this;
    }
  }

  /** The trees of the nodes of one kind (undefined: the cluster has no node of it). */
  ofKind(kind: string): Trees | undefined {
    return this.kinds.get(kind);
  }

  protected place(n: SimNode): void {
    const load = n.decodeLoad;
    const accepts = n.acceptsDecode;
    const least = accepts ? load : Infinity;
    const room = accepts && load < n.hw.maxDecodeBatch ? -load : Infinity;
    const kind = this.kinds.get(n.hw.kind)!;
    this.all.least.set(n.id, least);
    this.all.room.set(n.id, room);
    kind.least.set(n.id, least);
    kind.room.set(n.id, room);
  }
}

function trees(n: number): Trees {
  return { least: new MinTree(n), room: new MinTree(n) };
}

const indexes = new WeakMap<readonly SimNode[], DecodeIndex>();

/** The cluster's decode index, up to date. */
export function decodeIndex(nodes: readonly SimNode[]): DecodeIndex {
  return currentIndex(indexes, nodes, (ns) => new DecodeIndex(ns));
}
