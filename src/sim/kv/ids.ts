import { MAX_BLOCK_ID } from './types.js';

/** Throws unless `id` is a usable block id; kept out of line so hot loops stay small. */
export function badBlockId(id: number): never {
  throw new RangeError(`block id ${id} is not an integer in [0, ${MAX_BLOCK_ID}]`);
}

/** True for integers in [0, MAX_BLOCK_ID]; `>>> 0` rejects negatives and fractions in one compare. */
export function isBlockId(id: number): boolean {
  return id >>> 0 === id && id <= MAX_BLOCK_ID;
}

/** Next power-of-two size that holds index `id`, at least `min`. */
export function grownSize(current: number, id: number, min = 1024): number {
  let size = Math.max(current, min);
  while (size <= id) size *= 2;
  return size;
}
