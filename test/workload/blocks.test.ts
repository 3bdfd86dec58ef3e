import { describe, expect, it } from 'vitest';
import { appendTokens, BlockIdPool, BLOCK_TOKENS, countBlocks, encodeBlocks, expandBlocks, type Context } from '../../src/workload/blocks.js';

describe('block lists', () => {
  it('encodes runs of consecutive ids as ranges and expands them back', () => {
    const list = [5, 6, 7, 8, 20, 21, 40, 100, 101, 102];
    const encoded = encodeBlocks(list);
    expect(encoded).toEqual([[5, 4], 20, 21, 40, [100, 3]]);
    expect(expandBlocks(encoded)).toEqual(list);
    expect(countBlocks(encoded)).toBe(list.length);
    expect(encodeBlocks([])).toEqual([]);
  });

  it('lists only full blocks and gives the re-filled tail block a fresh id', () => {
    const pool = new BlockIdPool(4);
    const cursor = pool.cursor();
    const ctx: Context = { tokens: 0, blocks: [] };
    appendTokens(ctx, BLOCK_TOKENS + 100, cursor);
    expect(ctx.blocks).toEqual([0]);
    appendTokens(ctx, 400, cursor); // 1012 tokens: still one full block
    expect(ctx.blocks).toEqual([0]);
    appendTokens(ctx, 12, cursor); // 1024: the tail block is full now
    expect(ctx.blocks).toEqual([0, 1]);
    appendTokens(ctx, 3 * BLOCK_TOKENS, cursor);
    // Chunks of 4: the fifth id comes from a new chunk reserved from the pool.
    expect(ctx.blocks).toEqual([0, 1, 2, 3, 4]);
    const other = pool.cursor();
    const ctx2: Context = { tokens: 0, blocks: [] };
    appendTokens(ctx2, BLOCK_TOKENS, other);
    expect(ctx2.blocks).toEqual([8]);
  });
});
