import { z } from 'zod';
import { parseOrThrow } from '../../../common/validate.js';
import { codeHash } from '../../../store/index.js';
import { KnownPairSchema, type KnownPair, type TuneRequest } from '../tune/request.js';
import type { TuneResult } from '../tune/run.js';

/**
 * What a run's knob searches measured, per parent: the objective of each
 * (field, value) pair replayed, and the pairs whose child was proposed.
 *
 * Why: selection returns to the same elites, so one parent is searched
 * again and again, and each search shuffles the same few pairs. In a
 * 10-minute `bench:evolve-suite -- --scenarios shifting` (2026-12-04), 3 of
 * the 4 searches were of the seed greedy, and 13 of the 32 replays repeated
 * a pair already measured on the same parent; on shifting a replay is about
 * 25 s of a worker. A pair's objective depends only on the parent's code,
 * the pair and the run's objective (the training snapshots, their
 * references and the deterministic cost), so a later search reads it here
 * instead of replaying it, and skips a pair whose child was proposed.
 *
 * Deterministic: a batch's requests are all built when its slots are
 * proposed, before any of its searches answers, and what an answer adds
 * does not depend on the order answers arrive in (the same pair always has
 * the same objective).
 */
export class KnobMemo {
  private readonly byParent = new Map<string, Map<string, KnownPair>>();

  /** As a run's checkpoint keeps it (so a resumed run searches as the unstopped one would); `field` names it in errors. */
  static restore(saved: unknown, field: string): KnobMemo {
    const memo = new KnobMemo();
    if (saved === undefined || saved === null) return memo;
    for (const [parent, pairs] of parseOrThrow(KnobMemoSchema, saved, { field })) memo.byParent.set(parent, new Map(pairs.map((p) => [p.pair, p])));
    return memo;
  }

  toJSON(): KnobMemoSnapshot {
    return [...this.byParent].map(([parent, pairs]) => [parent, [...pairs.values()]]);
  }

  /** The request with the parent's known pairs (unchanged when none). */
  withKnown(request: TuneRequest): TuneRequest {
    const known = this.byParent.get(codeHash(request.code));
    return known && known.size > 0 ? { ...request, known: [...known.values()] } : request;
  }

  /** Keep what a search of `request.code` measured, and which pair it proposed. */
  record(request: TuneRequest, result: TuneResult | { ok: false }): void {
    if (!('measured' in result) && !('chosen' in result)) return;
    const key = codeHash(request.code);
    let known = this.byParent.get(key);
    if (!known) this.byParent.set(key, (known = new Map()));
    for (const m of result.measured ?? []) if (!known.has(m.pair)) known.set(m.pair, { ...m, proposed: false });
    // The chosen pair was measured by this search or known before: either way it is in `known` now.
    const chosen = result.chosen === undefined ? undefined : known.get(result.chosen);
    if (chosen) known.set(chosen.pair, { ...chosen, proposed: true });
  }
}

const KnobMemoSchema = z.array(z.tuple([z.string(), z.array(KnownPairSchema)]));
export type KnobMemoSnapshot = z.infer<typeof KnobMemoSchema>;
