import type { Rng } from '../../common/rng.js';
import type { Elite, IslandSet } from '../archive/index.js';
import { resolveSelectionConfig, type SelectionInput } from './config.js';

export type SelectionMode = 'exploit' | 'explore' | 'best';

export interface ParentChoice {
  parent: Elite;
  /** The island the parent was taken from: the requested one unless it was empty. */
  island: number;
  mode: SelectionMode;
}

/**
 * Draw the parent of the next mutation for an island. An empty island (early
 * in a run, before its first candidate lands) borrows from the next
 * non-empty island in ring order, so every iteration has a parent as soon as
 * any island has one. Undefined only when the whole population is empty.
 *
 * Draws: one uniform for the mode, then `tournamentSize` indices (exploit) or
 * one index (explore) or none (best). Elites are taken in their canonical
 * order (best first), so the same seed gives the same parent after a
 * checkpoint restore.
 */
export function selectParent(islands: IslandSet, island: number, rng: Rng, options: SelectionInput = {}): ParentChoice | undefined {
  const config = resolveSelectionConfig(options);
  islands.island(island); // range check
  const u = rng.next();
  const mode: SelectionMode = u < config.exploitRatio ? 'exploit' : u < config.exploitRatio + config.exploreRatio ? 'explore' : 'best';

  for (let k = 0; k < islands.count; k++) {
    const from = (island + k) % islands.count;
    const elites = islands.island(from).elites();
    if (elites.length === 0) continue;
    return { parent: elites[pickIndex(elites.length, mode, config.tournamentSize, rng)]!, island: from, mode };
  }
  return undefined;
}

function pickIndex(n: number, mode: SelectionMode, tournamentSize: number, rng: Rng): number {
  if (mode === 'best') return 0;
  if (mode === 'explore') return rng.int(0, n - 1);
  // Tournament with replacement: the list is sorted best first, so the
  // winner is the smallest index drawn.
  let winner = n - 1;
  for (let i = 0; i < tournamentSize; i++) winner = Math.min(winner, rng.int(0, n - 1));
  return winner;
}
