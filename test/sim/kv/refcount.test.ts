import { describe, expect, it } from 'vitest';
import { counts, directory } from './helpers.js';

const P0 = 0;
const P1 = 1;
const D2 = 2;
const D3 = 3;

describe('reference counts (design section 3)', () => {
  it('new branch: +1 on the blocks it uses', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2, 3], 0);
    expect(counts(kv, [1, 2, 3], P0)).toEqual([1, 1, 1]);
    // A fork shares the parent's context and counts it too.
    kv.admitPrefill(P0, 8, [1, 2, 3, 4], 1);
    expect(counts(kv, [1, 2, 3, 4], P0)).toEqual([2, 2, 2, 1]);
    kv.checkInvariants();
  });

  it("new sub-agent branch: a fresh context counts none of the parent's blocks", () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2, 3], 0);
    kv.admitPrefill(P0, 9, [50, 51], 1);
    expect(counts(kv, [1, 2, 3], P0)).toEqual([1, 1, 1]);
    expect(counts(kv, [50, 51], P0)).toEqual([1, 1]);
  });

  it('append: +1 on the new blocks only', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2], 0);
    kv.admitPrefill(P0, 7, [1, 2, 3, 4], 1);
    expect(counts(kv, [1, 2, 3, 4], P0)).toEqual([1, 1, 1, 1]);
    kv.checkInvariants();
  });

  it('compaction: -1 on dropped blocks, +1 on added ones, kept ones unchanged', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2, 3, 4], 0);
    kv.admitPrefill(P0, 8, [1, 2, 3, 4], 0); // another holder, to see -1 rather than a reset
    kv.admitPrefill(P0, 7, [1, 2, 90, 91], 1);
    expect(counts(kv, [1, 2, 3, 4, 90, 91], P0)).toEqual([2, 2, 1, 1, 1, 1]);
    kv.checkInvariants();
  });

  it('branch end: -1 on all its blocks, both phases', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2], 0);
    kv.admitDecode(D2, 7, [1, 2], 1);
    kv.addProduced(D2, 7, [3], 2);
    kv.admitPrefill(P0, 8, [1], 2);
    kv.endBranch(7);
    expect(counts(kv, [1, 2], P0)).toEqual([1, 0]);
    expect(counts(kv, [1, 2, 3], D2)).toEqual([0, 0, 0]);
    // Ending twice, or ending an unknown branch, changes nothing.
    kv.endBranch(7);
    kv.endBranch(12345);
    expect(kv.refCount(1, P0)).toBe(1);
    kv.checkInvariants();
  });

  it('P->P move: the count moves to the destination prefill node', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2], 0);
    kv.admitPrefill(P1, 7, [1, 2, 3], 1);
    expect(counts(kv, [1, 2, 3], P0)).toEqual([0, 0, 0]);
    expect(counts(kv, [1, 2, 3], P1)).toEqual([1, 1, 1]);
    // The old node keeps the blocks, now uncounted.
    expect(kv.has(1, P0, 1)).toBe(true);
    kv.checkInvariants();
  });

  it('D->D move: the count moves to the destination decode node, produced blocks included', () => {
    const kv = directory();
    kv.admitDecode(D2, 7, [1, 2], 0);
    kv.addProduced(D2, 7, [3], 1);
    kv.admitDecode(D3, 7, [1, 2, 3, 4], 2);
    expect(counts(kv, [1, 2, 3, 4], D2)).toEqual([0, 0, 0, 0]);
    expect(counts(kv, [1, 2, 3, 4], D3)).toEqual([1, 1, 1, 1]);
    kv.checkInvariants();
  });

  it('P->D hand-over: the count stays on both copies', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2], 0);
    kv.admitDecode(D2, 7, [1, 2], 1);
    kv.addProduced(D2, 7, [3], 2);
    expect(counts(kv, [1, 2, 3], P0)).toEqual([1, 1, 0]);
    expect(counts(kv, [1, 2, 3], D2)).toEqual([1, 1, 1]);
    // D->P: the next prefill of the branch appends on P0; D2 keeps its holding.
    kv.admitPrefill(P0, 7, [1, 2, 3, 4], 3);
    expect(counts(kv, [1, 2, 3, 4], P0)).toEqual([1, 1, 1, 1]);
    expect(counts(kv, [1, 2, 3], D2)).toEqual([1, 1, 1]);
    kv.checkInvariants();
  });

  it('one node serving both phases of a branch counts its copy once per phase', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1], 0);
    kv.admitDecode(P0, 7, [1], 1);
    expect(kv.refCount(1, P0)).toBe(2);
    kv.endBranch(7);
    expect(kv.refCount(1, P0)).toBe(0);
  });

  it('branch -1 (no harness signals) holds no counts', () => {
    const kv = directory();
    kv.admitPrefill(P0, -1, [1, 2], 0);
    kv.admitDecode(D2, -1, [1, 2], 1);
    kv.addProduced(D2, -1, [3], 2);
    expect(counts(kv, [1, 2], P0)).toEqual([0, 0]);
    expect(counts(kv, [1, 2, 3], D2)).toEqual([0, 0, 0]);
    expect(kv.has(3, D2, 1)).toBe(true);
    expect(kv.activeBranches).toBe(0);
    kv.endBranch(-1);
    kv.checkInvariants();
  });

  it('duplicate ids in one list count once', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 1, 2], 0);
    expect(counts(kv, [1, 2], P0)).toEqual([1, 1]);
    expect(kv.used(P0, 1)).toBe(2);
    kv.checkInvariants();
  });

  it('clearGpu resets the counts on the node, and a later endBranch does not decrement again', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2], 0);
    kv.admitDecode(D2, 7, [1, 2], 1);
    kv.admitDecode(D2, 8, [1, 2, 5], 1);
    kv.clearGpu(D2);
    expect(counts(kv, [1, 2, 5], D2)).toEqual([0, 0, 0]);
    expect(kv.has(1, D2, 1)).toBe(false);
    expect(kv.used(D2, 1)).toBe(0);
    // Host memory survives a role switch.
    expect(kv.has(1, D2, 2)).toBe(true);
    expect(kv.used(D2, 2)).toBe(3);
    // The P holding elsewhere is untouched.
    expect(counts(kv, [1, 2], P0)).toEqual([1, 1]);
    kv.endBranch(7);
    kv.endBranch(8);
    expect(counts(kv, [1, 2], P0)).toEqual([0, 0]);
    expect(counts(kv, [1, 2, 5], D2)).toEqual([0, 0, 0]);
    kv.checkInvariants();
  });

  it('after clearGpu the branch counts again when it next lands on the node', () => {
    const kv = directory();
    kv.admitDecode(D2, 7, [1, 2], 0);
    kv.clearGpu(D2);
    kv.admitDecode(D2, 7, [1, 2, 3], 1);
    expect(counts(kv, [1, 2, 3], D2)).toEqual([1, 1, 1]);
    kv.endBranch(7);
    expect(counts(kv, [1, 2, 3], D2)).toEqual([0, 0, 0]);
    kv.checkInvariants();
  });

  it('clearNode loses both tiers and the counts there', () => {
    const kv = directory();
    kv.admitPrefill(P0, 7, [1, 2], 0);
    kv.admitDecode(D2, 7, [1, 2], 1);
    kv.clearNode(P0);
    expect(kv.has(1, P0, 1) || kv.has(1, P0, 2)).toBe(false);
    expect(kv.used(P0, 1) + kv.used(P0, 2)).toBe(0);
    expect(counts(kv, [1, 2], P0)).toEqual([0, 0]);
    expect(counts(kv, [1, 2], D2)).toEqual([1, 1]);
    expect(kv.stats().l1Cleared).toBe(2);
    expect(kv.stats().l2Cleared).toBe(2);
    kv.endBranch(7);
    expect(counts(kv, [1, 2], D2)).toEqual([0, 0]);
    // Losing KV does not change what was once produced.
    expect(kv.match([1, 2]).ideal).toBe(2);
    kv.checkInvariants();
  });
});
