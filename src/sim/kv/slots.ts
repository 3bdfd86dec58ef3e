import { SLAB, SLAB_BITS } from './copy-store.js';
import { isBlockId } from './ids.js';

/**
 * The directory's per-block tables are indexed by slot, not by block id:
 * ids only ever rise while a run serves (a workload mints fresh ones for
 * every new block), so tables indexed by id would grow with every id ever
 * minted. A slot is the block's place while the block is alive, and is
 * handed to another block once it is dead.
 *
 * Ids map to slots a group at a time: ids g * 8 .. g * 8 + 7 (a copy slab's
 * worth, SLAB) share slot group s, and id g * 8 + k is slot s * 8 + k. So a
 * prompt's run of consecutive ids is a run of consecutive slots, as it was a
 * run of consecutive table records when tables were indexed by id, and a
 * walk along it asks the hash table once per group.
 *
 * A block (lane) is alive while it may still matter:
 * - SEEN: admitted and not retired. Any later prompt may name it again, and
 *   its "ever produced" mark must stay (the ideal prefix of a match).
 * - or it has copy records (resident somewhere, or counted by a branch).
 * RETIRED: the workload said the id never appears in a request again
 * (retire()); such a lane stays while it has copies, as produced. A group
 * whose lanes are all dead (unseen, or retired without copies) is freed:
 * its id group leaves the map and its slot group is reused.
 *
 * Slot group 0 is never handed out: slot 0 is never produced, so a lookup
 * that misses can return it and prefix matching stops there.
 */
export const UNSEEN = 0;
export const SEEN = 1;
export const RETIRED = 2;

/** The most slots (live blocks, not ids): slot << 2 and copy numbers must fit an int32. */
export const MAX_SLOTS = 2 ** 26;
const EMPTY = -1;
const GROUPS_PER_ID_GROUP = 2 ** 32;

export class BlockSlots {
  /** Per slot: UNSEEN, SEEN or RETIRED; not UNSEEN = produced. */
  state = new Uint8Array(1024);
  /** Per slot: its live copy records. */
  private copies = new Int32Array(1024);
  /** Per slot group: its id group (EMPTY if free) and its live lanes. */
  private groupOf = new Float64Array(1024 / SLAB).fill(EMPTY);
  private groupLive = new Int32Array(1024 / SLAB);
  /**
   * Per slot group: the slot group last found for the next id group (0 =
   * none; group 0 is reserved). A prompt's run crossing into the next group
   * reads two small arrays instead of probing the id map, a cache miss on
   * most crossings. Checked against groupOf on use, so it never goes stale.
   */
  private succ = new Int32Array(1024 / SLAB);
  private freeGroups: number[] = [];
  /** Groups whose live lanes reached 0 during the current call (sweep() frees them). */
  private readonly dying: number[] = [];
  /** Slot groups ever handed out, group 0 included (reserved). */
  private used = 1;
  private liveGroups = 0;

  /**
   * Open addressing, linear probing: id group (EMPTY = free) -> slot group,
   * as [key, value] pairs side by side, so that a lookup is one cache access.
   */
  private entries = emptyEntries(12);
  private bits = 12;
  private lastIdGroup = -1;
  private lastSlotGroup = -1;
  /** The slot lists lookupAll and internAll return views of. */
  private list = new Int32Array(512);

  constructor(private readonly onFree: (slotGroup: number) => void) {}

  /** Slots below this may be in use: per-slot tables must reach it. */
  get highWater(): number {
    return this.used << SLAB_BITS;
  }

  get liveGroupCount(): number {
    return this.liveGroups;
  }

  /** Size of the id map's table (entries), for tests of boundedness. */
  get mapCapacity(): number {
    return this.entries.length >> 1;
  }

  /** The slot of id, or 0 (never produced, no copies) if it has none. */
  lookup(id: number): number {
    const g = Math.floor(id / SLAB);
    const s = g === this.lastIdGroup ? this.lastSlotGroup : this.find(g);
    return s < 0 ? 0 : (s << SLAB_BITS) | (id - g * SLAB);
  }

  /** The slot of a block id; 0 (never produced, no copies) for an id without one or an invalid one. */
  slotOf(id: number): number {
    return isBlockId(id) ? this.lookup(id) : 0;
  }

  /** The slots of `ids` (0 for ids without one or invalid ones), valid until the next lookupAll or internAll. */
  lookupAll(ids: readonly number[]): Int32Array {
    const out = this.listFor(ids.length);
    let prev = -2;
    let slot = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      // Prompts are runs of consecutive ids: the next id of the same group is the next lane (or absent with it).
      if (id === prev + 1 && slot !== 0) {
        if (id % SLAB !== 0) slot++;
        else {
          const s = this.next(slot >>> SLAB_BITS, id / SLAB);
          slot = s < 0 ? 0 : s << SLAB_BITS;
        }
      } else if (id === prev + 1 && id % SLAB !== 0) slot = 0;
      else slot = this.slotOf(id);
      out[i] = slot;
      prev = id;
    }
    return out;
  }

  /** The slots of valid ids being admitted (interned), valid until the next lookupAll or internAll. */
  internAll(ids: readonly number[]): Int32Array {
    const out = this.listFor(ids.length);
    let prev = -2;
    let slot = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id === prev + 1 && id % SLAB !== 0) {
        slot++;
      } else if (id === prev + 1) {
        const from = slot >>> SLAB_BITS;
        let s = this.next(from, id / SLAB);
        if (s < 0) {
          s = this.addGroup(id / SLAB);
          this.succ[from] = s; // after addGroup, which may replace the array
        }
        slot = s << SLAB_BITS;
      } else {
        slot = this.intern(id);
        out[i] = slot;
        prev = id;
        continue;
      }
      this.see(slot);
      out[i] = slot;
      prev = id;
    }
    return out;
  }

  /**
   * A view of the first n entries of a buffer reused by every call: a JS
   * array emptied and refilled by push lost its backing store each time
   * (V8 drops it at length 0), which cost a reallocation per call.
   */
  private listFor(n: number): Int32Array {
    if (this.list.length < n) this.list = new Int32Array(Math.max(n, this.list.length * 2));
    return this.list.length === n ? this.list : this.list.subarray(0, n);
  }

  /** The slot of a block being admitted, created if needed; it becomes SEEN. The id must be valid. */
  intern(id: number): number {
    const g = Math.floor(id / SLAB);
    let s = g === this.lastIdGroup ? this.lastSlotGroup : this.find(g);
    if (s < 0) s = this.addGroup(g);
    const slot = (s << SLAB_BITS) | (id - g * SLAB);
    this.see(slot);
    return slot;
  }

  /** The slot group of id group g, given s, the slot group of g - 1; -1 if g has none. */
  private next(s: number, g: number): number {
    const c = this.succ[s]!;
    if (c !== 0 && this.groupOf[c] === g) return c;
    const found = this.find(g);
    if (found > 0) this.succ[s] = found;
    return found;
  }

  /** The slot's block is admitted: SEEN (alive) from now on. */
  private see(slot: number): void {
    const st = this.state[slot]!;
    if (st === SEEN) return;
    if (st === UNSEEN || this.copies[slot] === 0) this.groupLive[slot >>> SLAB_BITS]!++;
    this.state[slot] = SEEN;
  }

  /** Ids first .. first + count - 1 will not be named again: each one's slot goes once it has no copies. One lookup per group of 8. */
  retire(first: number, count: number): void {
    const end = first + count;
    for (let g = Math.floor(first / SLAB); g * SLAB < end; g++) {
      const s = g === this.lastIdGroup ? this.lastSlotGroup : this.find(g);
      if (s < 0) continue;
      const from = Math.max(first, g * SLAB);
      const to = Math.min(end, (g + 1) * SLAB);
      for (let id = from; id < to; id++) {
        const slot = (s << SLAB_BITS) | (id - g * SLAB);
        if (this.state[slot] !== SEEN) continue;
        this.state[slot] = RETIRED;
        if (this.copies[slot] === 0) this.laneDied(s);
      }
    }
  }

  copyAdded(slot: number): void {
    // Mostly a SEEN slot (admitted first); a retired block still held by a branch moving its holding gets copies too.
    if (this.copies[slot]!++ === 0 && this.state[slot] !== SEEN) this.groupLive[slot >>> SLAB_BITS]!++;
  }

  copyRemoved(slot: number): void {
    if (--this.copies[slot]! === 0 && this.state[slot] !== SEEN) this.laneDied(slot >>> SLAB_BITS);
  }

  copiesOf(slot: number): number {
    return this.copies[slot]!;
  }

  /** Consistency against the copy counts recomputed from the store; the first problem, or null. */
  check(liveCopies: (slot: number) => number): string | null {
    let live = 0;
    for (let s = 1; s < this.used; s++) {
      const g = this.groupOf[s]!;
      let lanes = 0;
      for (let k = 0; k < SLAB; k++) {
        const slot = (s << SLAB_BITS) | k;
        if (this.copies[slot] !== liveCopies(slot)) return `slot ${slot}: ${this.copies[slot]} copies counted, ${liveCopies(slot)} live`;
        if (g === EMPTY && this.state[slot] !== UNSEEN) return `slot ${slot}: free but marked ${this.state[slot]}`;
        if (this.state[slot] === SEEN || this.copies[slot]! > 0) lanes++;
      }
      if (g === EMPTY) continue;
      live++;
      if (lanes !== this.groupLive[s]) return `slot group ${s}: ${this.groupLive[s]} live lanes counted, ${lanes} alive`;
      if (lanes === 0) return `slot group ${s}: no live lane but not freed`;
      if (this.find(g) !== s) return `slot group ${s}: id group ${g} maps elsewhere`;
    }
    if (this.dying.length > 0) return `${this.dying.length} slot groups left to sweep`;
    if (live !== this.liveGroups) return `${this.liveGroups} live slot groups counted, ${live} found`;
    for (let k = 0; k < SLAB; k++) if (this.state[k] !== UNSEEN || this.copies[k] !== 0) return `reserved slot ${k} in use`;
    return null;
  }

  /**
   * Free the groups whose last lane died during the call that ends now.
   * Deferred to the end of each directory call: within one, a lane may die
   * and come back (a holding moving to another node releases its copies,
   * then counts the new node's).
   */
  sweep(): void {
    for (const s of this.dying) if (this.groupOf[s] !== EMPTY && this.groupLive[s] === 0) this.free(s);
    this.dying.length = 0;
  }

  private laneDied(s: number): void {
    if (--this.groupLive[s]! === 0) this.dying.push(s);
  }

  private free(s: number): void {
    this.onFree(s);
    const base = s << SLAB_BITS;
    this.state.fill(UNSEEN, base, base + SLAB);
    this.remove(this.groupOf[s]!);
    this.groupOf[s] = EMPTY;
    this.freeGroups.push(s);
    this.liveGroups--;
    if (this.lastSlotGroup === s) this.lastIdGroup = -1;
  }

  private addGroup(g: number): number {
    let s = this.freeGroups.pop();
    if (s === undefined) {
      s = this.used++;
      if (s << SLAB_BITS >= MAX_SLOTS) throw new RangeError(`more than ${MAX_SLOTS} live KV blocks`);
      if (s >= this.groupOf.length) this.grow();
    }
    this.groupOf[s] = g;
    this.groupLive[s] = 0;
    this.liveGroups++;
    if ((this.liveGroups + 1) * 2 > this.entries.length >> 1) this.rehash(this.bits + 1);
    this.insert(g, s);
    this.lastIdGroup = g;
    this.lastSlotGroup = s;
    return s;
  }

  private grow(): void {
    const groups = this.groupOf.length * 2;
    const groupOf = new Float64Array(groups).fill(EMPTY);
    groupOf.set(this.groupOf);
    this.groupOf = groupOf;
    this.groupLive = extend(this.groupLive, groups);
    this.succ = extend(this.succ, groups);
    const state = new Uint8Array(groups * SLAB);
    state.set(this.state);
    this.state = state;
    this.copies = extend(this.copies, groups * SLAB);
  }

  private home(g: number): number {
    const hi = (g / GROUPS_PER_ID_GROUP) | 0;
    return Math.imul(g ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> (32 - this.bits);
  }

  /** Entry positions below are pair indices: the key is at 2i, the value at 2i + 1. */
  private find(g: number): number {
    const e = this.entries;
    const mask = (e.length >> 1) - 1;
    for (let i = this.home(g); ; i = (i + 1) & mask) {
      const k = e[i << 1]!;
      if (k === g) {
        this.lastIdGroup = g;
        this.lastSlotGroup = e[(i << 1) + 1]!;
        return this.lastSlotGroup;
      }
      if (k === EMPTY) return -1;
    }
  }

  private insert(g: number, s: number): void {
    const e = this.entries;
    const mask = (e.length >> 1) - 1;
    let i = this.home(g);
    while (e[i << 1] !== EMPTY) i = (i + 1) & mask;
    e[i << 1] = g;
    e[(i << 1) + 1] = s;
  }

  /** Backward-shift deletion (no tombstones: probe lengths stay short under constant churn). */
  private remove(g: number): void {
    const e = this.entries;
    const mask = (e.length >> 1) - 1;
    let i = this.home(g);
    while (e[i << 1] !== g) i = (i + 1) & mask;
    for (let j = (i + 1) & mask; e[j << 1] !== EMPTY; j = (j + 1) & mask) {
      const h = this.home(e[j << 1]!);
      const stays = i <= j ? h > i && h <= j : h > i || h <= j;
      if (stays) continue;
      e[i << 1] = e[j << 1]!;
      e[(i << 1) + 1] = e[(j << 1) + 1]!;
      i = j;
    }
    e[i << 1] = EMPTY;
  }

  private rehash(bits: number): void {
    const old = this.entries;
    this.bits = bits;
    this.entries = emptyEntries(bits);
    for (let i = 0; i < old.length; i += 2) if (old[i] !== EMPTY) this.insert(old[i]!, old[i + 1]!);
  }
}

/** 2^bits free [key, value] pairs. */
function emptyEntries(bits: number): Float64Array {
  const e = new Float64Array(2 << bits);
  for (let i = 0; i < e.length; i += 2) e[i] = EMPTY;
  return e;
}

function extend(a: Int32Array, length: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(length);
  next.set(a);
  return next;
}
