import { acceptance, type SimNode } from '../node.js';
import { MinTree } from './min-tree.js';

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
export class WaitIndex {
  readonly running: MinTree;
  readonly queued: MinTree;
  readonly zero: MinTree;
  private readonly dirty: SimNode[] = [];
  private epoch = -1;

  constructor(private readonly nodes: readonly SimNode[]) {
    this.running = new MinTree(nodes.length);
    this.queued = new MinTree(nodes.length);
    this.zero = new MinTree(nodes.length);
    for (const n of nodes) n.waitWatch = this;
  }

  /** A node's running batch, its end or its queue estimate changed. */
  mark(node: SimNode): void {
    if (node.waitDirty) return;
    node.waitDirty = true;
    this.dirty.push(node);
  }

  /** Bring every entry up to date. */
  refresh(): void {
    if (this.epoch !== acceptance.epoch) {
      for (const n of this.nodes) this.place(n);
      this.epoch = acceptance.epoch;
    } else {
      for (const n of this.dirty) this.place(n);
    }
    for (const n of this.dirty) n.waitDirty = false;
    this.dirty.length = 0;
  }

  private place(n: SimNode): void {
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
  let ix = indexes.get(nodes);
  if (!ix) indexes.set(nodes, (ix = new WaitIndex(nodes)));
  ix.refresh();
  return ix;
}
