/**
 * The census's counters and its printed tables (census.ts fills them).
 * Stages are the directory's per-block loops; each adds block ops (loop
 * iterations today) and span ops (pieces a span record would take).
 */
export const STAGES = ['lookup', 'match', 'diff', 'detach', 'place', 'counts', 'evict', 'class', 'clear'] as const;
export type Stage = (typeof STAGES)[number];

const STAGE_HELP: Record<Stage, string> = {
  lookup: 'id -> slot of every block named (lookupAll/internAll) | id runs',
  match: 'prefix walk, blocks read | runs of unchanged L1/L2 masks',
  diff: 'admit: prompt and holding stamped/scanned | id runs of both (a merge of range lists)',
  detach: 'admit: prompt blocks looked up and detached | residency pieces of the resident ones',
  place: 'admit: prompt blocks placed (both tiers) | residency pieces of the prompt',
  counts: 'inc/dec, and D->D move lookups | count pieces gained, dropped, moved',
  evict: 'slots evicted (incl. a prompt\'s own deepest) | pieces popped',
  class: 'copies crossing count 0 (refcount queues) | segment moves',
  clear: 'slots dropped by clearGpu/clearNode | residency pieces',
};

interface KindRows {
  blocks: number[];
  runs: number[];
  blockOps: number[];
  spanOps: number[];
  splits: number[];
  evicted: number[];
  evictPieces: number[];
}

export class CensusTally {
  readonly blockOps: Record<Stage, number> = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  readonly spanOps: Record<Stage, number> = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  /** Splits forced so far (census.ts adds to it directly). */
  split = 0;
  selfDrops = 0;
  evictMiddle = 0;
  evictEnd = 0;
  evictAlone = 0;
  /** Calls' eviction pieces left partly resident (popped from their end, not whole). */
  trims = 0;
  readonly kinds = new Map<string, KindRows>();
  /** Per phase (P, D): [blocks, id runs] of each holding released whole (endBranch, a move to another node). */
  readonly released: [number, number][][] = [[], []];
  /** D->D moves (addProduced on another node), the blocks they move, and how many of those the new node holds. */
  moves = 0;
  moved = 0;
  movedResident = 0;
  private cur: { kind: string; blocks: number; runs: number; block: number; span: number; split: number; evicted: number; evictPieces: number } | null = null;

  begin(kind: string, blocks: number, runs: number): void {
    this.cur = { kind, blocks, runs, block: 0, span: 0, split: this.split, evicted: 0, evictPieces: 0 };
  }

  add(stage: Stage, block: number, span: number): void {
    this.blockOps[stage] += block;
    this.spanOps[stage] += span;
    const c = this.cur;
    if (!c) return;
    c.block += block;
    c.span += span;
    if (stage === 'evict') {
      c.evicted += block;
      c.evictPieces += span;
    }
  }

  end(): void {
    const c = this.cur!;
    let rows = this.kinds.get(c.kind);
    if (!rows) this.kinds.set(c.kind, (rows = { blocks: [], runs: [], blockOps: [], spanOps: [], splits: [], evicted: [], evictPieces: [] }));
    const splits = this.split - c.split;
    rows.blocks.push(c.blocks);
    rows.runs.push(c.runs);
    rows.blockOps.push(c.block);
    rows.spanOps.push(c.span + splits);
    rows.splits.push(splits);
    rows.evicted.push(c.evicted);
    rows.evictPieces.push(c.evictPieces);
    this.cur = null;
  }

  get totalBlockOps(): number {
    return STAGES.reduce((s, k) => s + this.blockOps[k], 0);
  }

  get totalSpanOps(): number {
    return STAGES.reduce((s, k) => s + this.spanOps[k], 0) + this.split;
  }

  /** The census as printed: per call kind, per stage, evictions, and the reduction with its Amdahl bound. */
  format(kvShare: number, baseRate: number): string[] {
    const out: string[] = [];
    const f1 = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
    out.push('per call kind (mean / P50 / P95 per call):');
    out.push('| call | calls | blocks | id runs | block ops | span ops | splits | evicted | evict pieces |');
    out.push('|---|---|---|---|---|---|---|---|---|');
    const kinds = [...this.kinds.entries()].sort((a, b) => b[1].blockOps.reduce(sum, 0) - a[1].blockOps.reduce(sum, 0));
    for (const [kind, r] of kinds) {
      const m = (xs: number[]): string => f1(mean(xs));
      const d = (xs: number[]): string => `${m(xs)} / ${pct(xs, 0.5)} / ${pct(xs, 0.95)}`;
      out.push(`| ${kind} | ${r.blocks.length} | ${d(r.blocks)} | ${d(r.runs)} | ${m(r.blockOps)} | ${d(r.spanOps)} | ${m(r.splits)} | ${m(r.evicted)} | ${m(r.evictPieces)} |`);
    }
    out.push('');
    out.push('per stage, whole replay (block ops today | span ops, best case):');
    out.push('| stage | block ops | span ops | ratio | what is counted (block ops / span ops) |');
    out.push('|---|---|---|---|---|');
    for (const s of STAGES) {
      const b = this.blockOps[s];
      const p = this.spanOps[s];
      out.push(`| ${s} | ${b} | ${p} | ${p > 0 ? (b / p).toFixed(1) : '-'}x | ${STAGE_HELP[s]} |`);
    }
    out.push(`| splits | 0 | ${this.split} | - | pieces cut from a uniform neighbour outside the call (ends of a call's id runs, part of a holding, a class move out of a run) |`);
    const B = this.totalBlockOps;
    const S = this.totalSpanOps;
    const R = B / S;
    out.push(`| total | ${B} | ${S} | ${R.toFixed(1)}x | |`);
    out.push('');
    const ev = this.blockOps.evict;
    const share = (x: number): string => `${((100 * x) / Math.max(ev, 1)).toFixed(1)} %`;
    out.push(`evictions: ${ev} slots (${this.selfDrops} a prompt's own deepest blocks), ${this.spanOps.evict} pieces (${(ev / Math.max(this.spanOps.evict, 1)).toFixed(1)} slots each), ${this.trims} left partly resident; by id neighbours resident in the tier: middle ${share(this.evictMiddle)}, end ${share(this.evictEnd)}, alone ${share(this.evictAlone)}`);
    for (const [phase, rows] of this.released.entries()) {
      const blocks = rows.map((r) => r[0]);
      const runs = rows.map((r) => r[1]);
      out.push(`${phase === 0 ? 'P' : 'D'} holdings released whole: ${rows.length}, blocks ${f1(mean(blocks))} / ${pct(blocks, 0.5)} / ${pct(blocks, 0.95)}, id runs ${f1(mean(runs))} / ${pct(runs, 0.5)} / ${pct(runs, 0.95)} (mean / P50 / P95)`);
    }
    out.push(`D->D moves: ${this.moves}, ${this.moved} blocks moved, ${((100 * this.movedResident) / Math.max(this.moved, 1)).toFixed(1)} % of them resident on the new node (the rest are counted there lazily, without a copy record, unless the block has its lazy count on another node: src/sim/kv/lazy-counts.ts)`);
    const admits = [...this.kinds.entries()].filter(([k]) => k.startsWith('ad')).reduce((s, [, r]) => s + r.blocks.length, 0);
    out.push(`evicted per admit: ${(ev / Math.max(admits, 1)).toFixed(1)} slots, ${(this.spanOps.evict / Math.max(admits, 1)).toFixed(1)} pieces (${admits} admits)`);
    const bound = 1 / (1 - kvShare + kvShare / R);
    const ceiling = 1 / (1 - kvShare);
    out.push(`reduction of per-block work: ${R.toFixed(1)}x; Amdahl with the directory at ${(100 * kvShare).toFixed(0)} % of bench:sim: ${bound.toFixed(2)}x (${Math.round(baseRate * bound)}x real time from ${baseRate}x), ceiling ${ceiling.toFixed(1)}x (${Math.round(baseRate * ceiling)}x) if the directory cost nothing`);
    return out;
  }
}

function sum(a: number, b: number): number {
  return a + b;
}

function mean(xs: number[]): number {
  return xs.length === 0 ? 0 : xs.reduce(sum, 0) / xs.length;
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const sorted = Float64Array.from(xs).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
