import { GATEWAY_TREE } from '../mechanics.js';
import { BLOCK_TOKENS } from '../request-state.js';

/**
 * The SGLang model gateway's approximate radix tree (sgl-project/sglang,
 * sgl-router/src/policies/tree.rs), at the simulator's block granularity.
 *
 * The gateway never asks a worker what it holds. It records, per worker
 * ("tenant"), the prompts it has sent there; a prompt marks every node of its
 * path with the tenant and the time. Matching walks the request down the tree
 * as far as any tenant's text goes and answers the deepest node's tenant, so
 * a worker that has since evicted the prefix still wins it (the request then
 * recomputes it: lost reuse). The tree is pruned only by its own size limit,
 * on a timer, least recently used leaves first.
 *
 * Block ids are chained (an id stands for its whole prefix), so a block is a
 * tree node and a tenant holding block i holds blocks 0..i-1 as well: every
 * access touches the whole path with one time, and the eviction order (oldest
 * first, deepest first among equals) only removes leaves.
 */
export class GatewayTree {
  /** Per block id: its depth in the prompt and the tenants holding it. */
  private readonly blocks = new Map<number, { depth: number; tenants: number[] }>();
  /** Per tenant: its blocks' last access, and the log of its accesses (for the eviction order). */
  private readonly tenants = new Map<number, Tenant>();
  private nextEviction: number;

  constructor(
    /** Per-tenant limit, in blocks. */
    readonly limitBlocks: number = Math.floor(GATEWAY_TREE.maxTreeChars / GATEWAY_TREE.charsPerToken / BLOCK_TOKENS),
    readonly intervalSeconds: number = GATEWAY_TREE.evictionIntervalSeconds,
  ) {
    this.nextEviction = intervalSeconds;
  }

  /** Blocks in `tenant`'s tree (tree.rs tenant_char_count, in blocks). */
  size(tenant: number): number {
    return this.tenants.get(tenant)?.times.size ?? 0;
  }

  /** Run the background evictions due by `now` (each one at its own tick; nothing is inserted between ticks but by routing, which calls this first). */
  maintain(now: number): void {
    while (now >= this.nextEviction) {
      for (const [id, tenant] of this.tenants) if (tenant.times.size > this.limitBlocks) this.evict(id, tenant);
      this.nextEviction += this.intervalSeconds;
    }
  }

  /**
   * The deepest prefix of `blocks` some accepted tenant's tree holds, and that
   * tenant (the lowest id when several hold it: tree.rs takes the first key
   * of its map). Touches the tenant's path, as tree.rs prefix_match does.
   * tenant -1: no block matched.
   */
  prefixMatch(blocks: readonly number[], accepts: (tenant: number) => boolean, now: number): { depth: number; tenant: number } {
    let depth = 0;
    let tenant = -1;
    for (let i = 0; i < blocks.length; i++) {
      const entry = this.blocks.get(blocks[i]!);
      if (!entry) break;
      let found = -1;
      for (const t of entry.tenants) if ((found < 0 || t < found) && accepts(t)) found = t;
      if (found < 0) break;
      depth = i + 1;
      tenant = found;
    }
    if (tenant >= 0) {
      const ten = this.tenants.get(tenant)!;
      for (let i = 0; i < depth; i++) ten.touch(blocks[i]!, now);
      ten.compactIfLong();
    }
    return { depth, tenant };
  }

  /** The request was sent to `tenant`: its whole prompt joins the tenant's tree (tree.rs insert). */
  insert(blocks: readonly number[], tenant: number, now: number): void {
    let ten = this.tenants.get(tenant);
    if (!ten) this.tenants.set(tenant, (ten = new Tenant()));
    const times = ten.times;
    for (let i = 0; i < blocks.length; i++) {
      const id = blocks[i]!;
      const last = times.get(id);
      if (last === now) continue; // touched by the match just before
      if (last === undefined) {
        const entry = this.blocks.get(id);
        if (entry) entry.tenants.push(tenant);
        else this.blocks.set(id, { depth: i, tenants: [tenant] });
      }
      ten.touch(id, now);
    }
    ten.compactIfLong();
  }

  /**
   * Prune the tenant down to the limit, least recently used leaves first
   * (tree.rs evict_tenant_by_size): oldest access first and, among blocks of
   * one time, the deepest first, so a block goes before its parent. The log
   * is in time order (times never decrease).
   */
  private evict(id: number, ten: Tenant): void {
    const times = ten.times;
    let i = ten.head;
    while (times.size > this.limitBlocks && i < ten.length) {
      const t = ten.logTimes[i]!;
      let j = i;
      while (j < ten.length && ten.logTimes[j] === t) j++;
      // One time's blocks still last accessed then, deepest first (then by id, for determinism).
      const group: { b: number; depth: number }[] = [];
      const inGroup = new Set<number>();
      for (let k = i; k < j; k++) {
        const b = ten.ids[k]!;
        if (times.get(b) === t && !inGroup.has(b)) {
          inGroup.add(b);
          group.push({ b, depth: this.blocks.get(b)!.depth });
        }
      }
      group.sort((x, y) => y.depth - x.depth || x.b - y.b);
      let evicted = 0;
      for (const { b } of group) {
        if (times.size <= this.limitBlocks) break;
        times.delete(b);
        const entry = this.blocks.get(b)!;
        entry.tenants.splice(entry.tenants.indexOf(id), 1);
        if (entry.tenants.length === 0) this.blocks.delete(b);
        evicted++;
      }
      // A time whose blocks all went is done with; one cut short is read again next time.
      if (evicted === group.length) ten.head = j;
      i = j;
    }
  }
}

/**
 * A tenant's blocks with their last access, and the log of its accesses
 * (block id, time) in time order, in growable typed arrays: the eviction
 * reads the log from its start, skipping the entries a later access superseded.
 */
class Tenant {
  readonly times = new Map<number, number>();
  /** Log entries before it are all superseded or evicted. */
  head = 0;
  length = 0;
  ids = new Float64Array(1024);
  logTimes = new Float64Array(1024);

  touch(id: number, t: number): void {
    this.times.set(id, t);
    if (this.length === this.ids.length) {
      const ids = new Float64Array(this.ids.length * 2);
      const times = new Float64Array(this.ids.length * 2);
      ids.set(this.ids);
      times.set(this.logTimes);
      this.ids = ids;
      this.logTimes = times;
    }
    this.ids[this.length] = id;
    this.logTimes[this.length++] = t;
  }

  /** Compact when the log is several times the tree (amortised: about one look-up per access). */
  compactIfLong(): void {
    if (this.length - this.head > 8 * this.times.size + 65_536) this.compact();
  }

  /** Keep, in order, each block's entry of its last access (the first of several equal ones). */
  compact(): void {
    let out = 0;
    const kept = new Set<number>();
    for (let i = this.head; i < this.length; i++) {
      const id = this.ids[i]!;
      const t = this.logTimes[i]!;
      if (this.times.get(id) !== t || kept.has(id)) continue;
      kept.add(id);
      this.ids[out] = id;
      this.logTimes[out++] = t;
    }
    this.length = out;
    this.head = 0;
  }
}
