/**
 * bench:kv-replay --census: what a span representation of the KV directory
 * (runs of consecutive block ids as one record) could save on bench:sim's
 * own directory calls. The calls are replayed on this tree's KvDirectory
 * with its internals observed, so every figure is the real directory's
 * behaviour, not a model of it:
 *
 * - block ops: the iterations of the per-block loops today (slot lookups,
 *   the prefix walk, detach and place of each prompt block, each count
 *   change, each evicted or cleared slot, each class change);
 * - span ops: what the same call would cost if each maximal piece of
 *   uniform state were one record: the pieces a call's blocks fall into,
 *   read off the directory's state just before the call, plus the splits it
 *   forces (a piece whose uniform neighbour outside the call is left behind).
 *
 * Two partitions, because they change for different reasons:
 * - residency: ids descending by one whose slots are neighbours in their
 *   eviction run (next(slot of id + 1) = slot of id) in every tier they are
 *   resident in, and resident in the same tiers (a prompt placed last block
 *   first is one such piece until part of it is touched again);
 * - count: ids descending by one with the same reference count.
 * The split counts are a lower bound on the span design's extra work: they
 * take the best case, one operation per piece.
 */
import { BLOCK, COUNT, NEXT, NOT_RESIDENT, PREV, QUEUE, SLAB_BITS, slotBase } from '../../src/sim/kv/copy-store.js';
import { L1_MASK, L2_MASK } from '../../src/sim/kv/block-table.js';
import type { Call } from './record.js';
import { CensusTally } from './census-tally.js';

type Fn = (...args: never[]) => unknown;
interface Holding {
  node: number;
  size: number;
  blocks: Int32Array;
}
/** The directory's private parts the census reads (runtime fields of this tree's KvDirectory). */
interface Internals {
  copies: { store: { i32: Int32Array }; find(slot: number, node: number): number };
  slots: { slotOf(id: number): number; lookupAll(ids: readonly number[]): Int32Array; groupOf: Float64Array; state: Uint8Array };
  table: { data: Int32Array; size: number };
  tiers: { queues: { members(q: number): number[]; peek(q: number): number }; [k: string]: unknown };
  holdings: { branches: Map<number, [Holding, Holding]> };
  [k: string]: unknown;
}
type Same = (older: number, newer: number) => boolean;

export class KvCensus {
  readonly tally = new CensusTally();
  private readonly d: Internals;
  /** Per (node, tier): the slot whose eviction would continue the last evicted piece (-1: none). */
  private lastNext = new Map<number, number>();
  private lastSelf = new Map<number, number>();
  /** Which phase each holding seen at an admit is (0: P, 1: D), for the shape of released holdings. */
  private readonly phaseOf = new WeakMap<Holding, number>();

  constructor(private readonly directory: Record<string, unknown>) {
    this.d = directory as unknown as Internals;
    this.hook();
  }

  private get i32(): Int32Array {
    return this.d.copies.store.i32;
  }

  /** Replay one recorded call, observing it. */
  run(call: Call): void {
    const [name, ...args] = call;
    const t = this.tally;
    this.lastNext.clear();
    this.lastSelf.clear();
    let kind: string = name;
    if (name === 'match') {
      const ids = args[0] as number[];
      const m = (this.directory.match as (b: number[]) => { ideal: number }).call(this.directory, ids);
      t.begin(kind, ids.length, idRuns(ids));
      t.add('lookup', ids.length, idRuns(ids));
      this.matchWalk(ids, m.ideal);
    } else if (name === 'admitPrefill' || name === 'admitDecode' || name === 'addProduced') {
      const [node, branch, ids] = args as [number, number, number[]];
      const phase = name === 'admitPrefill' ? 0 : 1;
      const h = branch === -1 ? undefined : this.d.holdings.branches.get(branch)?.[phase];
      if (h) this.phaseOf.set(h, phase);
      if (branch === -1) kind += ' (no branch)';
      else if (h && h.size > 0 && h.node !== node) kind += ' (other node)';
      t.begin(kind, ids.length, idRuns(ids));
      t.add('lookup', ids.length, idRuns(ids));
      this.admitShape(node, ids, branch === -1 ? null : (h ?? { node: -1, size: 0, blocks: new Int32Array(0) }), name === 'addProduced');
      (this.directory[name] as Fn as (...a: unknown[]) => void).apply(this.directory, args);
    } else if (name === 'endBranch') {
      const hs = this.d.holdings.branches.get(args[0] as number);
      const blocks = hs ? hs[0].size + hs[1].size : 0;
      t.begin(kind, blocks, hs ? hs.reduce((s, h) => s + idRuns(descending(this.idsOf(h)).reverse()), 0) : 0);
      (this.directory[name] as Fn as (...a: unknown[]) => void).apply(this.directory, args);
    } else {
      t.begin(kind, 0, 0);
      (this.directory[name] as Fn as (...a: unknown[]) => void).apply(this.directory, args);
    }
    for (const next of this.lastNext.values()) if (next >= 0) t.trims++;
    t.end();
  }

  /** The prefix walk: mask pieces (both masks unchanged, ids consecutive) among the blocks it reads. */
  private matchWalk(ids: number[], ideal: number): void {
    const slots = this.d.slots.lookupAll(ids);
    const data = this.d.table.data;
    const walked = Math.min(ids.length, ideal + 1);
    let pieces = 0;
    for (let i = 0; i < walked; i++) {
      const b = slots[i]!;
      const p = slots[i - 1] ?? 0;
      const same = i > 0 && ids[i] === ids[i - 1]! + 1 && b >>> 0 < this.d.table.size && data[(b << 2) + L1_MASK] === data[(p << 2) + L1_MASK] && data[(b << 2) + L2_MASK] === data[(p << 2) + L2_MASK];
      if (!same) pieces++;
    }
    this.tally.add('match', walked, pieces);
  }

  /** Before an admit: its prompt's residency pieces, and the count pieces of what its holding gains and drops. */
  private admitShape(node: number, ids: number[], h: Holding | null, extend: boolean): void {
    const order = [...ids].reverse(); // placement order: last block first
    const place = this.pieces(order, node, this.sameResidency, true);
    const resident = order.filter((id) => this.residentAnywhere(this.copyOf(id, node)));
    this.tally.add('detach', ids.length, this.pieces(resident, node, this.sameResidency, true).pieces);
    this.tally.add('place', ids.length, place.pieces);
    this.tally.split += place.splits;
    if (!h) return;
    const held = h.size > 0 ? this.idsOf(h) : [];
    // The holding diff (replaceHolding's stamps, extendHolding's listed scan): a merge of two range lists for spans.
    this.tally.add('diff', ids.length + held.length, idRuns(ids) + idRuns(descending(held).reverse()));
    const heldSet = new Set(held);
    const promptSet = new Set(ids);
    let gained: number[];
    if (extend) gained = h.node === node || h.size === 0 ? order.filter((id) => !heldSet.has(id)) : order;
    else gained = h.node === node ? order.filter((id) => !heldSet.has(id)) : order;
    this.countPieces(gained, node, new Set(gained));
    // Same node, not extending: the holding's blocks outside the prompt are decremented one by one (release() is not called).
    if (!extend && h.node === node) {
      const dropped = held.filter((id) => !promptSet.has(id));
      this.countPieces(dropped, node, new Set(dropped));
    }
  }

  /** Count pieces are ranges of ids, whatever order the holding lists them in: walked in descending id order. */
  private countPieces(ids: number[], node: number, inList: Set<number>): void {
    if (ids.length === 0) return;
    const p = this.pieces(descending(ids), node, this.sameCount, false, inList);
    this.tally.add('counts', 0, p.pieces);
    this.tally.split += p.splits;
  }

  /**
   * Pieces of `ids` on `node`, in placement order (oldest first), cut where
   * the next id is not one less or `same` fails; splits: ends of the list's
   * id runs whose outside neighbour (not in the list) would continue them.
   */
  private pieces(ids: number[], node: number, same: Same, residency: boolean, inList: Set<number> = new Set(ids)): { pieces: number; splits: number } {
    let pieces = 0;
    let splits = 0;
    let prev = -1;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      const c = this.copyOf(id, node);
      const runStart = k === 0 || ids[k - 1] !== id + 1;
      if (runStart || !same(prev, c)) pieces++;
      const runEnd = k === ids.length - 1 || ids[k + 1] !== id - 1;
      if (c >= 0 && (residency ? this.residentAnywhere(c) : this.i32[(c << 4) + COUNT]! > 0)) {
        if (runStart && !inList.has(id + 1) && same(this.copyOf(id + 1, node), c) && this.copyOf(id + 1, node) >= 0) splits++;
        if (runEnd && !inList.has(id - 1) && same(c, this.copyOf(id - 1, node)) && this.copyOf(id - 1, node) >= 0) splits++;
      }
      prev = c;
    }
    return { pieces, splits };
  }

  /** Residency continues from `older` (the copy of id + 1) to `newer` (of id): same tiers, neighbours in each. */
  private readonly sameResidency: Same = (older, newer) => {
    if (older < 0 || newer < 0) return older < 0 && newer < 0;
    const i32 = this.i32;
    for (let t = 0; t < 2; t++) {
      const qo = i32[slotBase(older * 2 + t) + QUEUE]!;
      const qn = i32[slotBase(newer * 2 + t) + QUEUE]!;
      if ((qo === NOT_RESIDENT) !== (qn === NOT_RESIDENT)) return false;
      if (qo !== NOT_RESIDENT && i32[slotBase(older * 2 + t) + NEXT] !== newer * 2 + t) return false;
    }
    return true;
  };

  private readonly sameCount: Same = (older, newer) => this.countOf(older) === this.countOf(newer);

  private countOf(c: number): number {
    return c < 0 ? 0 : this.i32[(c << 4) + COUNT]!;
  }

  private residentAnywhere(c: number): boolean {
    if (c < 0) return false;
    return this.i32[slotBase(c * 2) + QUEUE] !== NOT_RESIDENT || this.i32[slotBase(c * 2 + 1) + QUEUE] !== NOT_RESIDENT;
  }

  private copyOf(id: number, node: number): number {
    const slot = this.d.slots.slotOf(id);
    return slot === 0 ? -1 : this.d.copies.find(slot, node);
  }

  private idOfSlot(slot: number): number {
    return this.d.slots.groupOf[slot >>> SLAB_BITS]! * (1 << SLAB_BITS) + (slot & ((1 << SLAB_BITS) - 1));
  }

  private idsOf(h: Holding): number[] {
    const out: number[] = [];
    for (let k = 0; k < h.size; k++) out.push(this.idOfSlot(h.blocks[k]!));
    return out;
  }

  /** Eviction of slot x from (node, tier t): one more piece unless it continues the last one there. */
  private evicted(x: number, node: number, t: number, self: boolean): void {
    const i32 = this.i32;
    const id = this.idOfSlot(i32[((x >> 1) << 4) + BLOCK]!);
    const nt = node * 2 + t;
    const tally = this.tally;
    const continues = self ? this.lastSelf.get(nt) === id + 1 : this.lastNext.get(nt) === x;
    tally.add('evict', 1, continues ? 0 : 1);
    if (self) tally.selfDrops++;
    const up = this.residentIn(id + 1, node, t);
    const down = this.residentIn(id - 1, node, t);
    if (up && down) tally.evictMiddle++;
    else if (up || down) tally.evictEnd++;
    else tally.evictAlone++;
    // The next eviction continues this piece if it takes the next slot, id - 1, of the same run.
    const next = self ? -1 : i32[slotBase(x) + NEXT]!;
    this.lastNext.set(nt, next >= 0 && this.idOfSlot(i32[((next >> 1) << 4) + BLOCK]!) === id - 1 ? next : -1);
    if (self) this.lastSelf.set(nt, id);
  }

  private residentIn(id: number, node: number, t: number): boolean {
    const c = this.copyOf(id, node);
    return c >= 0 && this.i32[slotBase(c * 2 + t) + QUEUE] !== NOT_RESIDENT;
  }

  /** Per-instance wrappers of the directory's per-block steps (own properties shadow the prototypes' methods). */
  private hook(): void {
    const d = this.d;
    const tiers = d.tiers;
    const queues = tiers.queues as unknown as Record<string, unknown>;
    const tally = this.tally;
    const wrap = (obj: Record<string, unknown>, name: string, before: (...a: never[]) => void): void => {
      const original = obj[name] as (...a: unknown[]) => unknown;
      // The census reads the directory's internals by name: a renamed step must stop it, not go uncounted.
      if (typeof original !== 'function') throw new Error(`bench:kv-replay --census: the directory has no step '${name}' (update bench/kv-replay/census.ts)`);
      obj[name] = function (this: unknown, ...a: unknown[]): unknown {
        (before as (...x: unknown[]) => void)(...a);
        return original.apply(this, a);
      };
    };
    const tierObj = tiers as unknown as Record<string, unknown>;
    wrap(tierObj, 'evictHead', (q: number, node: number, t: number) => this.evicted(tiers.queues.peek(q), node, t, false));
    wrap(tierObj, 'dropSlot', (x: number, node: number, t: number, free: boolean) => {
      if (!free) this.evicted(x, node, t, true);
    });
    wrap(tierObj, 'clearTier', (node: number, t: number) => {
      const q0 = (node * 2 + t) * 2;
      const members = tiers.queues.members(q0).concat(tiers.queues.members(q0 + 1));
      let pieces = 0;
      for (const x of members) {
        const p = this.i32[slotBase(x) + PREV]!;
        const id = this.idOfSlot(this.i32[((x >> 1) << 4) + BLOCK]!);
        if (p < 0 || this.idOfSlot(this.i32[((p >> 1) << 4) + BLOCK]!) !== id + 1) pieces++;
      }
      tally.add('clear', members.length, pieces);
    });
    wrap(tierObj, 'classChanged', () => tally.add('class', 1, 0));
    wrap(queues, 'moveSegment', (first: number, last: number) => {
      tally.add('class', 0, 1);
      const i32 = this.i32;
      const p = i32[slotBase(first) + PREV]!;
      const n = i32[slotBase(last) + NEXT]!;
      const idF = this.idOfSlot(i32[((first >> 1) << 4) + BLOCK]!);
      const idL = this.idOfSlot(i32[((last >> 1) << 4) + BLOCK]!);
      if (p >= 0 && this.idOfSlot(i32[((p >> 1) << 4) + BLOCK]!) === idF + 1) tally.split++;
      if (n >= 0 && this.idOfSlot(i32[((n >> 1) << 4) + BLOCK]!) === idL - 1) tally.split++;
    });
    wrap(d, 'inc', () => tally.add('counts', 1, 0));
    wrap(d, 'dec', () => tally.add('counts', 1, 0));
    wrap(d, 'release', (h: Holding) => {
      if (h.size === 0) return;
      const ids = this.idsOf(h);
      this.countPieces(ids, h.node, new Set(ids));
      const phase = this.phaseOf.get(h);
      if (phase !== undefined) tally.released[phase]!.push([ids.length, idRuns(descending(ids).reverse())]);
    });
    wrap(d, 'moveHolding', (h: Holding, node: number) => {
      // The release of the old node's copies is counted by release(); the new node's copies are looked up and counted.
      const ids = this.idsOf(h);
      tally.add('counts', ids.length, 0);
      this.countPieces(ids, node, new Set(ids));
      tally.moves++;
      tally.moved += ids.length;
      for (const id of ids) if (this.residentAnywhere(this.copyOf(id, node))) tally.movedResident++;
    });
  }
}

/** The distinct ids, largest first. */
function descending(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => b - a);
}

/** Maximal runs of consecutive ids (each id one more than the last) in a block list. */
export function idRuns(ids: readonly number[]): number {
  let runs = 0;
  for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[i - 1]! + 1) runs++;
  return runs;
}

