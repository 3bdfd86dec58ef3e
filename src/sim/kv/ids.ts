/**
 * The largest block id the directory takes: any safe integer. Ids are mapped
 * to slots (slots.ts), so their size costs nothing; the trace format keeps
 * its own 26-bit cap (workload/blocks.ts MAX_BLOCK_ID) for files.
 */
export const MAX_DIRECTORY_BLOCK_ID = Number.MAX_SAFE_INTEGER;

/** Throws unless `id` is a usable block id; kept out of line so hot loops stay small. */
export function badBlockId(id: number): never {
  throw new RangeError(`block id ${id} is not an integer in [0, ${MAX_DIRECTORY_BLOCK_ID}]`);
}

/** True for integers in [0, MAX_DIRECTORY_BLOCK_ID] (NaN fails the first compare). */
export function isBlockId(id: number): boolean {
  return id >= 0 && id <= MAX_DIRECTORY_BLOCK_ID && Math.floor(id) === id;
}
