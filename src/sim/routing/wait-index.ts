import type { SimNode } from '../node.js';
import { MinTree } from './min-tree.js';
import { currentIndex, NodeIndex } from './node-index.js';

/**
 * The accepting prefill nodes by what a request routed to them now would
 * wait (predicted-TTFT routing): `running` holds the nodes running a batch,
 * keyed by prefillBusyUntil + queuedPredictedSeconds (their wait at `now` is
 * that key minus now, as the batch ends at prefillBusyUntil); `queued` the
 * idle ones with a nonzero queue estimate, keyed by it (their wait); `zero`
 * the idle ones with none (wait exactly 0), keyed 0. A node's entry is
 * refreshed when one of those fields changes (SimNode's setters mark it) or
 * when any node's acceptance changes (all of them).
 */
export class WaitIndex extends NodeIndex {
  readonly running: MinTree;
  readonly queued: MinTree;
  readonly zero: MinTree;

  constructor(nodes: readonly SimNode[]) {
    super(nodes);
    this.running = new MinTree(nodes.length);
    this.queued = new MinTree(nodes.length);
    this.zero = new MinTree(nodes.length);
    for (const n of nodes) n.waitWatch = this;
  }

  protected place(n: SimNode): void {
    const id = n.id;
    let r = Infinity;
    let q = Infinity;
    let z = Infinity;
    if (n.acceptsPrefill) {
      if (n.prefillRunning.length > 0) r = n.prefillBusyUntil + n.queuedPredictedSeconds;
      else if (n.queuedPredictedSeconds !== 0) q = n.queuedPredictedSeconds;
      else z = 0;
    }
    this.running.set(id, r);
    this.queued.set(id, q);
    this.zero.set(id, z);
  }
}

const indexes = new WeakMap<readonly SimNode[], WaitIndex>();

/** The cluster's wait index, up to date. */
export function waitIndex(nodes: readonly SimNode[]): WaitIndex {
  return currentIndex(indexes, nodes, (ns) => new WaitIndex(ns));
}
