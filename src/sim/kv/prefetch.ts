import { COUNT } from './copy-store.js';

/**
 * Prefetch pass: a loop that only reads the first word of the copy records
 * a directory call is about to work on (or, for copies counted lazily, their
 * entries in the lazy table), so that their cache misses overlap.
 *
 * Why: in the profile of bench:sim (cc, 126 agents, 9 nodes, 4P5D) the
 * single hottest line of the KV directory was dec()'s first read of a
 * copy's count in release(), 12 % of the directory's samples: a holding's
 * copies (about 290 in calibrated cc) were last touched a round of all
 * agents ago, so each 64-byte record comes from L3 or memory. Most releases
 * are a branch's whole holding on the node it left (62 % of cc prefills go
 * to another node than the branch's last). dec() runs tens of instructions
 * and a call or two per copy, so only a miss or two is in flight at a time;
 * a loop of nothing but independent loads has as many as the core's miss
 * buffers allow, and the holding's records then fit in L1/L2 for the real
 * loop. Measured: release() fell from 18 % to 8-11 % of a replay of the
 * directory calls of bench:sim.
 *
 * The pass changes nothing: it reads, folds what it read into a value the
 * caller keeps (so the loads are not dead code), and the directory's logic
 * runs after it as before. The same pass before the prompt's lookups
 * (detachAll) and before a D->D move's lookups on the new node did not pay
 * (those loops are tight enough already), and a load one step ahead along
 * an eviction queue cannot overlap (each step depends on the last).
 */
export function touchCopies(i32: Int32Array, copies: Int32Array, blocks: Int32Array, lazy: Int32Array, n: number): number {
  let s = 0;
  for (let k = 0; k < n; k++) {
    const c = copies[k]!;
    // A copy counted lazily (-1) has no record: its count is in the lazy table (lazy-counts.ts).
    s ^= c >= 0 ? i32[(c << 4) + COUNT]! : lazy[blocks[k]! << 1]!;
  }
  return s;
}
