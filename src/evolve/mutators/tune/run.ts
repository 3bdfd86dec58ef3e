import { codeHash } from '../../../common/code-hash.js';
import { Rng } from '../../../common/rng.js';
import type { Evaluation } from '../../../evaluate/index.js';
import { parsePolicy } from '../policy-shape.js';
import { KnownPoints } from './known-points.js';
import { countedObjective, formatObjective as fmt } from './objective.js';
import { codeAt, pickLiterals, toPoint, valueAt, type TunableLiteral } from './literals.js';
import type { KnownPoint, TuneRequest } from './request.js';

/** What a tuning run answers: the tuned code and one line on how it got there, or why nothing came of it. */
export type TuneResult = (
  | { ok: true; code: string; summary: string; replays: number; objective: number; baseline: number }
  | { ok: false; kind: 'no-edit' | 'parse'; message: string; replays: number }
) & {
  /** The points this search replayed, with their objective (null: the point failed), for the run's memo (tune/memo.ts). */
  measured?: Omit<KnownPoint, 'proposed'>[];
  /** The point whose child it proposes. */
  chosen?: string;
};

/** Step size on log|value| at the start: about a 35 % relative move. */
const INITIAL_STEP = 0.3;
/**
 * The 1/5th success rule (Rechenberg; the smooth form of Kern et al. 2004):
 * x exp(1/3) on a success, x exp(-1/12) on a failure, so the step is stable
 * when one point in five improves, grows when more do and shrinks otherwise.
 */
const GROW = Math.exp(1 / 3);
const SHRINK = Math.exp(-1 / 12);
/**
 * Known points (no replay) a run may take, per replay of its budget. A
 * second search of a parent retraces much of the first (same start, same
 * step rule): on shifting (2026-12-04) 8 of a second search's first 11
 * points were the first's. A cap of one per replay ended that search after 3
 * of its 8 replays, on the first search's child; this one lets the budget go
 * to new points, and still ends a search that meets nothing new.
 */
const KNOWN_PER_REPLAY = 4;

/**
 * A seeded (1+1) evolution strategy over a candidate's numeric literals
 * (log-scaled), with 1/5th-success step-size adaptation, on the worker's
 * training snapshots. `replay` is the evaluator (the worker's). A point that
 * fails (a policy failure, a timeout) is worse than any other. A strict
 * improvement over the start is required: equal is not better.
 *
 * A point whose code is known (measured by an earlier search of the same
 * parent, `request.known`, or earlier in this one; or the parent's own code)
 * costs no replay; at most KNOWN_PER_REPLAY x `request.replays` such points
 * are taken, so a search that only meets known points still ends. A search
 * that ends on a child proposed before answers no-edit: that child is a
 * candidate already.
 */
export function runTuning(request: TuneRequest, replay: (code: string, snapshot: number) => Evaluation): TuneResult {
  let program;
  try {
    program = parsePolicy(request.code);
  } catch (error) {
    return { ok: false, kind: 'parse', message: `does not parse: ${(error as Error).message}`, replays: 0 };
  }
  const rng = new Rng(request.seed);
  const literals = pickLiterals(program, request.maxLiterals, rng);
  if (literals.length === 0) return { ok: false, kind: 'no-edit', message: 'no numeric literal to tune', replays: 0 };
  const counted = countedObjective(request, replay);
  const known = new KnownPoints(request.known);
  const objective = (code: string): number => known.objective(codeHash(code), () => counted(code));
  const start = toPoint(literals);
  const baseline = request.baseline ?? counted(request.code);
  // A point that rounds back to the parent is the parent: its objective is the baseline.
  known.assume(codeHash(request.code), baseline);
  let x = start;
  let fx = baseline;
  let code = request.code;
  let step = INITIAL_STEP;
  let points = 0;
  let successes = 0;
  let bestTried = Infinity;
  const perPoint = request.snapshots.length;
  while (counted.replays + perPoint <= request.replays && known.reread < KNOWN_PER_REPLAY * request.replays) {
    const y = x.map((v) => v + step * rng.normal(0, 1));
    let next = codeAt(request.code, literals, y);
    if (next === code) {
      // Too small a step to move any rounded literal: move the literal drawn
      // furthest by the least it can move (one unit, or 10 % for a real), so
      // that no replay is spent on the same code and the search never stalls.
      let k = 0;
      for (let i = 1; i < y.length; i++) if (Math.abs(y[i]! - x[i]!) > Math.abs(y[k]! - x[k]!)) k = i;
      y[k] = nudge(literals[k]!, x[k]!, y[k]! >= x[k]!);
      next = codeAt(request.code, literals, y);
    }
    if (next === code) break;
    points++;
    const fy = objective(next);
    bestTried = Math.min(bestTried, fy);
    if (fy < fx) {
      x = y;
      fx = fy;
      code = next;
      successes++;
      step *= GROW;
    } else step *= SHRINK;
  }
  const knownNote = known.reread > 0 ? ` (${known.reread} known, not replayed)` : '';
  const trail = `(1+1)-ES on ${literals.length} literal${literals.length === 1 ? '' : 's'}, ${points} points${knownNote} in ${counted.replays} replays, ${successes} better, step ${INITIAL_STEP} -> ${step.toFixed(2)}`;
  const replays = counted.replays;
  const measured = known.measured;
  if (code === request.code) {
    return { ok: false, kind: 'no-edit', message: `tune: ${trail}: nothing beat the start (objective ${fmt(baseline)}, best tried ${fmt(bestTried)})`, replays, measured };
  }
  const chosen = codeHash(code);
  if (known.get(chosen)?.proposed) {
    return { ok: false, kind: 'no-edit', message: `tune: ${trail}: the best (objective ${fmt(fx)}) is a child an earlier search proposed`, replays, measured };
  }
  return { ok: true, code, summary: `tune ${changes(literals, x)}; ${trail}; objective ${fmt(baseline)} -> ${fmt(fx)}`, replays, objective: fx, baseline, measured, chosen };
}

/** The point coordinate of the smallest move of a literal from x, up or down (an integer never below 1). */
function nudge(literal: TunableLiteral, x: number, up: boolean): number {
  const current = valueAt(literal, x);
  if (!literal.integer) return Math.log(Math.abs(current) * (up ? 1.1 : 0.9));
  const next = up || Math.abs(current) <= 1 ? Math.abs(current) + 1 : Math.abs(current) - 1;
  return Math.log(next);
}

function changes(literals: readonly TunableLiteral[], x: readonly number[]): string {
  const moved = literals.flatMap((l, i) => {
    const v = valueAt(l, x[i]!);
    return v === l.value ? [] : [`${l.raw} -> ${v} ${l.where} (line ${l.line})`];
  });
  return moved.length <= 3 ? moved.join(', ') : `${moved.slice(0, 3).join(', ')} and ${moved.length - 3} more`;
}

