/**
 * A deliberately naive KV directory with the same documented semantics as
 * src/sim/kv: maps and linear scans, no cleverness, so that the randomized
 * test can compare the fast one against it operation by operation.
 */
import type { EvictionOrder, PrefixMatch } from '../../../src/sim/kv/index.js';

interface Entry {
  /** Access sequence number of the last placement. */
  key: number;
}

interface Holding {
  node: number;
  blocks: number[];
}

export class ReferenceKv {
  readonly tiers: Map<number, Entry>[][];
  readonly counts = new Map<string, number>();
  readonly holdings = new Map<number, [Holding, Holding]>();
  readonly produced = new Set<number>();
  seq = 0;
  readonly stats = { l1Evictions: 0, l2Evictions: 0, l1HeldEvictions: 0, l2HeldEvictions: 0, l1Cleared: 0, l2Cleared: 0 };

  constructor(
    readonly nodeCount: number,
    readonly caps: number[][],
    readonly order: EvictionOrder,
  ) {
    this.tiers = Array.from({ length: nodeCount }, () => [new Map(), new Map()]);
  }

  refCount(b: number, n: number): number {
    return this.counts.get(`${b}@${n}`) ?? 0;
  }

  has(b: number, n: number, tier: 1 | 2): boolean {
    return this.tiers[n]![tier - 1]!.has(b);
  }

  used(n: number, tier: 1 | 2): number {
    return this.tiers[n]![tier - 1]!.size;
  }

  admit(node: number, branch: number, phase: 0 | 1, blocks: number[], extend: boolean): void {
    if (branch !== -1) {
      const h = this.holding(branch, phase);
      const next = extend ? dedupe([...h.blocks, ...blocks]) : dedupe(blocks);
      if (h.node === node) {
        for (const b of h.blocks) if (!next.includes(b)) this.add(b, node, -1);
        for (const b of next) if (!h.blocks.includes(b)) this.add(b, node, +1);
      } else {
        for (const b of h.blocks) this.add(b, h.node, -1);
        for (const b of next) this.add(b, node, +1);
      }
      h.node = next.length > 0 ? node : -1;
      h.blocks = next;
    }
    // The prompt's resident blocks are out of the eviction order until re-placed.
    const detached = [0, 1].map((t) => new Set(blocks.filter((b) => this.tiers[node]![t]!.has(b))));
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      this.produced.add(b);
      const key = ++this.seq;
      for (let t = 0; t < 2; t++) {
        const tier = this.tiers[node]![t]!;
        const e = tier.get(b);
        if (e) {
          e.key = key;
          detached[t]!.delete(b);
          continue;
        }
        tier.set(b, { key });
        if (tier.size > this.caps[node]![t]!) this.evict(node, t, detached[t]!, b);
      }
    }
  }

  endBranch(branch: number): void {
    const hs = this.holdings.get(branch);
    if (!hs) return;
    this.holdings.delete(branch);
    for (const h of hs) for (const b of h.blocks) this.add(b, h.node, -1);
  }

  clear(node: number, tiers: number): void {
    for (const hs of this.holdings.values()) {
      for (const h of hs) {
        if (h.node !== node) continue;
        for (const b of h.blocks) this.add(b, node, -1);
        h.node = -1;
        h.blocks = [];
      }
    }
    for (let t = 0; t < tiers; t++) {
      const tier = this.tiers[node]![t]!;
      if (t === 0) this.stats.l1Cleared += tier.size;
      else this.stats.l2Cleared += tier.size;
      tier.clear();
    }
  }

  match(blocks: number[]): PrefixMatch {
    const gpu = new Int32Array(this.nodeCount);
    const local = new Int32Array(this.nodeCount);
    for (let n = 0; n < this.nodeCount; n++) {
      gpu[n] = leading(blocks, (b) => this.has(b, n, 1));
      local[n] = leading(blocks, (b) => this.has(b, n, 1) || this.has(b, n, 2));
    }
    const sources: number[] = [];
    for (const b of blocks) {
      let src = -1;
      for (let n = 0; n < this.nodeCount && src < 0; n++) if (this.has(b, n, 2)) src = n;
      for (let n = 0; n < this.nodeCount && src < 0; n++) if (this.has(b, n, 1)) src = n;
      if (src < 0) break;
      sources.push(src);
    }
    return {
      gpu,
      local,
      pool: sources.length,
      poolSource: Int32Array.from(sources),
      ideal: leading(blocks, (b) => this.produced.has(b)),
    };
  }

  /** Evict the first block in eviction order, among those not detached; a rejected newcomer is not counted. */
  private evict(node: number, t: number, detached: Set<number>, newcomer: number): void {
    const tier = this.tiers[node]![t]!;
    let best = -1;
    let bestKey: number[] = [];
    for (const [b, e] of tier) {
      if (detached.has(b)) continue;
      const cls = this.order === 'refcount' && this.refCount(b, node) > 0 ? 1 : 0;
      const key = [cls, e.key];
      if (best < 0 || lexLess(key, bestKey)) {
        best = b;
        bestKey = key;
      }
    }
    tier.delete(best);
    if (best === newcomer) return;
    const held = this.refCount(best, node) > 0;
    if (t === 0) {
      this.stats.l1Evictions++;
      if (held) this.stats.l1HeldEvictions++;
    } else {
      this.stats.l2Evictions++;
      if (held) this.stats.l2HeldEvictions++;
    }
  }

  private add(b: number, n: number, delta: number): void {
    const key = `${b}@${n}`;
    const v = (this.counts.get(key) ?? 0) + delta;
    if (v < 0) throw new Error(`reference model: negative count on ${key}`);
    if (v === 0) this.counts.delete(key);
    else this.counts.set(key, v);
  }

  private holding(branch: number, phase: 0 | 1): Holding {
    let hs = this.holdings.get(branch);
    if (!hs) {
      hs = [
        { node: -1, blocks: [] },
        { node: -1, blocks: [] },
      ];
      this.holdings.set(branch, hs);
    }
    return hs[phase];
  }
}

function dedupe(blocks: number[]): number[] {
  return [...new Set(blocks)];
}

function leading(blocks: number[], present: (b: number) => boolean): number {
  let i = 0;
  while (i < blocks.length && present(blocks[i]!)) i++;
  return i;
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  }
  return false;
}
