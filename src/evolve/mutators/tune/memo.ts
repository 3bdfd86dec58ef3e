import { z } from 'zod';
import { codeHash } from '../../../common/code-hash.js';
import { parseOrThrow } from '../../../common/validate.js';
import { KnownPointSchema, type KnownPoint, type TuneRequest } from './request.js';
import type { TuneResult } from './run.js';

/**
 * What a run's searches measured, per parent and kind of search: the
 * objective of each point replayed (knob-search: a `group.key=value` pair;
 * tune: the child's code hash), and the points whose child was proposed.
 *
 * Why: selection returns to the same elites, so one parent is searched
 * again and again. In a 10-minute `bench:evolve-suite -- --scenarios
 * shifting` (2026-12-04), 3 of the 4 knob searches were of the seed greedy,
 * and 13 of their 32 replays repeated a pair already measured on the same
 * parent; two tune searches of greedy both moved its `bounds` 1 -> 2, the
 * second one's child a duplicate after 8 replays. On shifting a replay is
 * about 25 s of a worker. A point's objective depends only on the child's
 * code and the run's objective (the training snapshots, their references
 * and the deterministic cost), so a later search reads it here instead of
 * replaying it, and does not propose a child proposed before.
 *
 * Deterministic: a batch's requests are all built when its slots are
 * proposed, before any of its searches answers, and what an answer adds
 * does not depend on the order answers arrive in (the same point always has
 * the same objective). Answers arrive in the order the workers finish, so
 * what the memo hands out (a request's `known`, which is part of a queue
 * job's content address, and the checkpoint) is sorted, never in the order
 * it was recorded.
 */
export class SearchMemo {
  private readonly byParent = new Map<string, Map<string, KnownPoint>>();

  /**
   * As a run's checkpoint keeps it (so a resumed run searches as the
   * unstopped one would); `field` names it in errors. A checkpoint written
   * before tune had a memo keys knob searches by the parent's hash alone.
   */
  static restore(saved: unknown, field: string): SearchMemo {
    const memo = new SearchMemo();
    if (saved === undefined || saved === null) return memo;
    for (const [key, points] of parseOrThrow(SearchMemoSchema, saved, { field })) {
      memo.byParent.set(key.includes(':') ? key : `knobs:${key}`, new Map(points.map((p) => [p.pair, p])));
    }
    return memo;
  }

  toJSON(): SearchMemoSnapshot {
    return [...this.byParent.keys()].sort().map((key) => [key, sorted(this.byParent.get(key)!)]);
  }

  /** The request with what earlier searches of its kind measured on its parent (unchanged when nothing). */
  withKnown(request: TuneRequest): TuneRequest {
    const known = this.byParent.get(memoKey(request));
    return known && known.size > 0 ? { ...request, known: sorted(known) } : request;
  }

  /** Keep what a search of `request.code` measured, and which point it proposed. */
  record(request: TuneRequest, result: TuneResult | { ok: false }): void {
    if (!('measured' in result) && !('chosen' in result)) return;
    const key = memoKey(request);
    let known = this.byParent.get(key);
    if (!known) this.byParent.set(key, (known = new Map()));
    for (const m of result.measured ?? []) if (!known.has(m.pair)) known.set(m.pair, { ...m, proposed: false });
    // The chosen point was measured by this search or known before: either way it is in `known` now.
    const chosen = result.chosen === undefined ? undefined : known.get(result.chosen);
    if (chosen) known.set(chosen.pair, { ...chosen, proposed: true });
  }
}

/** A parent's points by name: the same list whatever order the searches answered in. */
function sorted(points: ReadonlyMap<string, KnownPoint>): KnownPoint[] {
  return [...points.keys()].sort().map((k) => points.get(k)!);
}

/** Knob pairs and tuned children are different points: one map each per parent. */
function memoKey(request: TuneRequest): string {
  return `${request.search ?? 'literals'}:${codeHash(request.code)}`;
}

const SearchMemoSchema = z.array(z.tuple([z.string(), z.array(KnownPointSchema)]));
export type SearchMemoSnapshot = z.infer<typeof SearchMemoSchema>;
