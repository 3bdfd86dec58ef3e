import type { KnownPoint } from './request.js';

/**
 * One search's points: those earlier searches of the parent measured
 * (`request.known`, from the run's SearchMemo) and those this search
 * measures, so that no point is replayed twice. `pair` names a point
 * (knob-search: the pair's label; tune: the child's code hash).
 */
export class KnownPoints {
  private readonly points: Map<string, KnownPoint>;
  /** What this search replayed, with its objective (null: the point failed), for the run's memo. */
  readonly measured: Omit<KnownPoint, 'proposed'>[] = [];
  /** Points read here instead of replayed. */
  reread = 0;

  constructor(known: readonly KnownPoint[] = []) {
    this.points = new Map(known.map((k) => [k.pair, k]));
  }

  get(pair: string): KnownPoint | undefined {
    return this.points.get(pair);
  }

  /** The point's objective: read when known (no replay; a failed point is Infinity), else `measure()`d and kept. */
  objective(pair: string, measure: () => number): number {
    const before = this.points.get(pair);
    if (before) {
      this.reread++;
      return before.objective ?? Infinity;
    }
    const f = measure();
    const point = { pair, objective: Number.isFinite(f) ? f : null };
    this.measured.push(point);
    this.points.set(pair, { ...point, proposed: false });
    return f;
  }

  /** A point whose objective is known without a replay (the parent's own: its fitness); not reported as measured. */
  assume(pair: string, objective: number): void {
    if (!this.points.has(pair)) this.points.set(pair, { pair, objective, proposed: false });
  }
}
