import { CopyIndex } from './copy-index.js';
import { BLOCK, CopyStore, NODE } from './copy-store.js';
import { isBlockId } from './ids.js';

/** Copy lifecycle: find, create and free the record of (block, node), keeping store and index in step. */
export class Copies {
  readonly store = new CopyStore();
  readonly index = new CopyIndex();

  /** The copy of `block` on `node`, or -1. */
  find(block: number, node: number): number {
    return isBlockId(block) ? this.index.get(block, node) : -1;
  }

  /** A new record (count 0, resident nowhere); the copy must not exist. May reallocate store arrays. */
  create(block: number, node: number): number {
    const c = this.store.alloc(block, node);
    this.index.add(block, node, c);
    return c;
  }

  findOrCreate(block: number, node: number): number {
    const c = this.index.get(block, node);
    return c >= 0 ? c : this.create(block, node);
  }

  free(c: number): void {
    const o = c << 4;
    this.index.delete(this.store.i32[o + BLOCK]!, this.store.i32[o + NODE]!);
    this.store.release(c);
  }
}
