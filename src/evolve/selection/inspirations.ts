import type { Rng } from '../../common/rng.js';
import type { Elite, IslandSet } from '../archive/index.js';
import { resolveInspirationConfig, type InspirationInput } from './config.js';

/**
 * Other elites to show the mutator beside the parent. Their job is to bring
 * in ideas the parent's lineage lacks, so the pool is ranked by how far an
 * elite is from the parent: another island and another cell first, then
 * either, then the rest. Within a rank the pick is uniform (fitness pressure
 * already comes from parent selection). Never the parent itself (by id or
 * code) and never two with the same code.
 *
 * `island` is the island being worked on. Draws: a Fisher-Yates shuffle of
 * each rank that is needed, best rank first.
 */
export function selectInspirations(islands: IslandSet, island: number, parent: Elite, rng: Rng, options: InspirationInput = {}): Elite[] {
  const { count } = resolveInspirationConfig(options);
  islands.island(island); // range check
  const ranks: Elite[][] = [[], [], []];
  const taken = new Set<string>([parent.codeHash]);
  // Own island first, then ring order, each in canonical order: when the same
  // code sits on several islands, its copy at home (the lower rank) wins.
  for (let k = 0; k < islands.count; k++) {
    const from = (island + k) % islands.count;
    for (const elite of islands.island(from).elites()) {
      if (elite.id === parent.id || taken.has(elite.codeHash)) continue;
      taken.add(elite.codeHash);
      ranks[(from !== island ? 1 : 0) + (elite.cell !== parent.cell ? 1 : 0)]!.push(elite);
    }
  }

  const chosen: Elite[] = [];
  for (let rank = 2; rank >= 0 && chosen.length < count; rank--) {
    const pool = ranks[rank]!;
    rng.shuffle(pool);
    chosen.push(...pool.slice(0, count - chosen.length));
  }
  return chosen;
}

