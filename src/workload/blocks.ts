/**
 * Context as the KV cache sees it: a token count and the ids of its full
 * 512-token blocks. Ids are chained (an id stands for its whole prefix), so a
 * block gets a fresh id whenever anything before or inside it changes; equal
 * ids at the same position mean equal prefixes.
 */

export const BLOCK_TOKENS = 512;

/**
 * The largest block id a trace file may name (26 bits): a limit of the file
 * format, which keeps recorded and imported traces to small integers (a stray
 * hash-sized id is refused). In the simulator ids are any safe integer: its
 * KV directory maps them to slots of live blocks (src/sim/kv/slots.ts), so a
 * workload that keeps minting ids (a serve run of days) never runs out.
 */
export const MAX_BLOCK_ID = 2 ** 26 - 1;

/**
 * The most tokens one request may carry as input or output (16 M, beyond
 * any model's context): a trace line asking for more is refused rather than
 * expanded into millions of block ids.
 */
export const MAX_REQUEST_TOKENS = 2 ** 24;

/**
 * Hands out globally unique block ids. Each owner (a branch, a shared prefix)
 * takes ids from its own chunk of consecutive ids, so that one branch's blocks
 * are mostly consecutive: traces encode them as a few [start, count] ranges,
 * and ids stay small integers for the simulator's maps.
 */
export class BlockIdPool {
  private next = 0;
  constructor(readonly chunk = 64) {}

  /**
   * A new owner cursor; it reserves its first chunk lazily. With `chunks`,
   * the first id of every chunk it reserves is pushed there, so that the
   * owner can retire its ids once nothing can name them again.
   */
  cursor(chunks?: number[]): BlockIdCursor {
    return new BlockIdCursor(this, chunks);
  }

  /** Reserve `count` consecutive ids; returns the first. */
  reserve(count: number): number {
    const first = this.next;
    this.next += count;
    return first;
  }
}

export class BlockIdCursor {
  private at = 0;
  private end = 0;
  constructor(
    private readonly pool: BlockIdPool,
    private readonly chunks?: number[],
  ) {}

  take(): number {
    if (this.at === this.end) {
      this.at = this.pool.reserve(this.pool.chunk);
      this.end = this.at + this.pool.chunk;
      this.chunks?.push(this.at);
    }
    return this.at++;
  }
}

/** A branch's context. `blocks` is owned and grows in place; requests get copies. */
export interface Context {
  tokens: number;
  blocks: number[];
}

/** A new context that shares `base`'s full blocks (a fork, or a shared prefix). */
export function copyContext(base: Context): Context {
  return { tokens: base.tokens, blocks: base.blocks.slice() };
}

/**
 * Append `count` tokens. The partial tail block plus the new tokens form new
 * blocks, which get fresh ids: their content differs from any earlier block.
 */
export function appendTokens(ctx: Context, count: number, ids: BlockIdCursor): void {
  const before = Math.floor(ctx.tokens / BLOCK_TOKENS);
  ctx.tokens += count;
  const after = Math.floor(ctx.tokens / BLOCK_TOKENS);
  for (let i = before; i < after; i++) ctx.blocks.push(ids.take());
}

/** A list of block ids as stored in traces: an id, or [first id, count] for a run of consecutive ids. */
export type EncodedBlocks = Array<number | [number, number]>;

/** Runs of 3 or more consecutive ids become ranges; shorter runs stay plain ids (no shorter as text). */
export function encodeBlocks(ids: readonly number[]): EncodedBlocks {
  const out: EncodedBlocks = [];
  let i = 0;
  while (i < ids.length) {
    let j = i + 1;
    while (j < ids.length && ids[j] === ids[j - 1]! + 1) j++;
    const run = j - i;
    if (run >= 3) out.push([ids[i]!, run]);
    else for (let k = i; k < j; k++) out.push(ids[k]!);
    i = j;
  }
  return out;
}

export function expandBlocks(list: readonly (number | readonly [number, number])[]): number[] {
  const out: number[] = [];
  for (const item of list) {
    if (typeof item === 'number') out.push(item);
    else for (let k = 0; k < item[1]; k++) out.push(item[0] + k);
  }
  return out;
}

/** Number of ids an encoded list stands for, without expanding it. */
export function countBlocks(list: readonly (number | readonly [number, number])[]): number {
  let n = 0;
  for (const item of list) n += typeof item === 'number' ? 1 : item[1];
  return n;
}
