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
export interface Holding {
  node: number;
  blocks: number[];
  copies: number[];
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
  *entries(): Generator<Holding & { branch: number; phase: Phase }> {
    for (const [branch, hs] of this.branches) {
      for (let phase = 0; phase < 2; phase++) {
        const h = hs[phase]!;
        if (h.blocks.length > 0) yield { ...h, branch, phase: phase as Phase };
      }
    }
  }

  get branchCount(): number {
    return this.branches.size;
  }
}

function emptyHolding(): Holding {
  return { node: NO_NODE, blocks: [], copies: [] };
}
