/** Phase of a holding: P = prefill side (admitPrefill), D = decode side (admitDecode, addProduced). */
export const PHASE_P = 0;
export const PHASE_D = 1;
export type Phase = typeof PHASE_P | typeof PHASE_D;

/**
 * The blocks a branch counts in one phase, all on one node (one copy per
 * phase), with the copy record of each. A counted copy is never freed, so the
 * ids stay valid and releasing a holding needs no lookups. Lists are in the
 * order the copies were last placed, oldest first.
 */
export interface Holding extends HoldingLists {
  node: number;
}

/** Parallel growable lists: the first `size` entries of `blocks` and `copies` are used. */
export interface HoldingLists {
  size: number;
  blocks: Int32Array;
  copies: Int32Array;
}

/** Room for `n` entries, keeping the used ones. */
export function reserve(lists: HoldingLists, n: number): void {
  if (n <= lists.blocks.length) return;
  // Headroom: holdings swap arrays with each other, so sizes must settle quickly.
  const capacity = Math.max(n + (n >> 1), lists.blocks.length * 2);
  const blocks = new Int32Array(capacity);
  const copies = new Int32Array(capacity);
  blocks.set(lists.blocks.subarray(0, lists.size));
  copies.set(lists.copies.subarray(0, lists.size));
  lists.blocks = blocks;
  lists.copies = copies;
}

/** Whether the lists hold the block (a linear scan: for small lists). */
export function listed(lists: HoldingLists, block: number): boolean {
  for (let k = 0; k < lists.size; k++) if (lists.blocks[k] === block) return true;
  return false;
}

export function emptyLists(): HoldingLists {
  return { size: 0, blocks: new Int32Array(16), copies: new Int32Array(16) };
}

export const NO_NODE = -1;

/** Which branch holds what: a registry; the count changes are the directory's. */
export class BranchHoldings {
  private readonly branches = new Map<number, [Holding, Holding]>();

  /** The branch's holding in `phase`, created empty on first use. */
  of(branch: number, phase: Phase): Holding {
    let hs = this.branches.get(branch);
    if (!hs) {
      hs = [emptyHolding(), emptyHolding()];
      this.branches.set(branch, hs);
    }
    return hs[phase];
  }

  /** Forget the branch; returns its holdings (to release), if it had any. */
  take(branch: number): readonly Holding[] | undefined {
    const hs = this.branches.get(branch);
    if (hs) this.branches.delete(branch);
    return hs;
  }

  /** Every holding on `node`. */
  *onNode(node: number): Generator<Holding> {
    for (const hs of this.branches.values()) for (const h of hs) if (h.node === node) yield h;
  }

  /** Every non-empty holding, for recomputing counts from scratch in checks. */
  *entries(): Generator<{ branch: number; phase: Phase; node: number; blocks: Int32Array; copies: Int32Array }> {
    for (const [branch, hs] of this.branches) {
      for (let phase = 0; phase < 2; phase++) {
        const h = hs[phase]!;
        if (h.size > 0) yield { branch, phase: phase as Phase, node: h.node, blocks: h.blocks.subarray(0, h.size), copies: h.copies.subarray(0, h.size) };
      }
    }
  }

  get branchCount(): number {
    return this.branches.size;
  }
}

function emptyHolding(): Holding {
  return { node: NO_NODE, ...emptyLists() };
}
