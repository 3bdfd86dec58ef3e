import { acceptance, type SimNode } from '../node.js';

/**
 * An index over a cluster's nodes that routing reads, kept current lazily:
 * SimNode's setters mark a node whose indexed fields changed, and refresh()
 * re-places only the marked nodes, or every node when any node's acceptance
 * changed since the last refresh (acceptance.epoch). Node ids are 0..n-1.
 */
export abstract class NodeIndex {
  private readonly dirty: SimNode[] = [];
  private readonly isDirty: Uint8Array;
  private epoch = -1;

  constructor(protected readonly nodes: readonly SimNode[]) {
    this.isDirty = new Uint8Array(nodes.length);
  }

  /** One of the node's indexed fields changed. */
  mark(node: SimNode): void {
    if (this.isDirty[node.id]) return;
    this.isDirty[node.id] = 1;
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
    for (const n of this.dirty) this.isDirty[n.id] = 0;
    this.dirty.length = 0;
  }

  /** Write the node's entries from its fields as they are now. */
  protected abstract place(n: SimNode): void;
}

/**
 * The cluster's index made by `make`, one per node array (held in `cache`),
 * up to date.
 */
export function currentIndex<T extends NodeIndex>(cache: WeakMap<readonly SimNode[], T>, nodes: readonly SimNode[], make: (nodes: readonly SimNode[]) => T): T {
  let ix = cache.get(nodes);
  if (!ix) cache.set(nodes, (ix = make(nodes)));
  ix.refresh();
  return ix;
}
