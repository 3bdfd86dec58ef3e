/**
 * Which island iteration `iteration` works on: round-robin, so every island
 * gets the same share of mutations whatever their fitness (an island that
 * falls behind is exactly the diversity islands exist to keep).
 */
export function islandForIteration(iteration: number, islandCount: number): number {
  if (!Number.isInteger(iteration) || iteration < 0) throw new RangeError(`iteration must be a non-negative integer, got ${iteration}`);
  if (!Number.isInteger(islandCount) || islandCount < 1) throw new RangeError(`islandCount must be a positive integer, got ${islandCount}`);
  return iteration % islandCount;
}
