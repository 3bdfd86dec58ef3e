import { Rng } from '../../../common/rng.js';
import type { Evaluation } from '../../../evaluate/index.js';
import type { CtxMechanics } from '../../../policy/index.js';
import { parsePolicy } from '../policy-shape.js';
import { knobEdit, knobPairs, namesGroup, type InsertableKnob } from '../structural/insert-knob.js';
import { KnownPoints } from '../tune/known-points.js';
import { countedObjective, formatObjective as fmt } from '../tune/objective.js';
import type { TuneRequest } from '../tune/request.js';
import type { TuneResult } from '../tune/run.js';

/** True when `value` is the setting of `knob` in force where every training snapshot starts. */
export type KnobInForce = (knob: InsertableKnob, value: string | number) => boolean;

/** The KnobInForce of training snapshots that start with these settings (each one's ctx.mechanics at t = 0). */
export function inForceAtStart(atStart: readonly CtxMechanics[]): KnobInForce {
  return (knob, value) => atStart.every((m) => (m[knob.group] as Record<string, unknown>)[knob.key] === value);
}

/**
 * Knob search: every (field, value) insert-knob can make of the parent
 * (structural/insert-knob.ts: the fields some returned plan lacks, each value
 * of its list), in an order shuffled by the request's seed, replayed one by
 * one on the training snapshots while the budget lasts; the best child that
 * strictly beats the parent wins (a tie goes to the pair tried first). The
 * blind `knob` draws one pair per candidate, so a field worth having whose
 * value is one of 15 is found by few candidates of a mix; here one candidate
 * tries as many pairs as its replays pay for. `inForce` (the worker's: the
 * knobs where its snapshots start) lets the search skip the pairs that could
 * only give the parent back.
 */
export function runKnobSearch(
  request: TuneRequest,
  replay: (code: string, snapshot: number) => Evaluation,
  inForce: KnobInForce = () => false,
): TuneResult {
  let program;
  try {
    program = parsePolicy(request.code);
  } catch (error) {
    return { ok: false, kind: 'parse', message: `does not parse: ${(error as Error).message}`, replays: 0 };
  }
  const open = knobPairs(program);
  if (open.length === 0) return { ok: false, kind: 'no-edit', message: 'schedule returns no plan literal that lacks a knob', replays: 0 };
  // A value in force from the start on every training snapshot, in a group the policy never sets, is the parent itself.
  const pairs = open.filter(({ knob, value }) => !(inForce(knob, value) && !namesGroup(program, knob.group)));
  const skipped = open.length - pairs.length;
  if (pairs.length === 0) {
    return { ok: false, kind: 'no-edit', message: `knob-search: all ${open.length} pairs are the settings in force`, replays: 0 };
  }
  new Rng(request.seed).shuffle(pairs);
  const known = new KnownPoints(request.known);
  const objective = countedObjective(request, replay);
  const baseline = request.baseline ?? objective(request.code);
  const perPoint = request.snapshots.length;
  let best: { code: string; description: string; objective: number; label: string } | null = null;
  const tried: string[] = [];
  for (const { knob, value } of pairs) {
    const label = pairLabel(knob, value);
    const before = known.get(label);
    // A child proposed before would be a duplicate; one measured before costs no replay: its objective is the same.
    if (before?.proposed) continue;
    if (!before && objective.replays + perPoint > request.replays) continue;
    const edit = knobEdit({ code: request.code, program }, knob, value);
    const f = known.objective(label, () => objective(edit.code));
    tried.push(`${label} ${fmt(f)}${before ? ' (known)' : ''}`);
    if (f < (best?.objective ?? baseline)) best = { code: edit.code, description: edit.description, objective: f, label };
  }
  const notes = [skipped > 0 ? `${skipped} in force skipped` : '', known.reread > 0 ? `${known.reread} known from earlier searches` : ''].filter(Boolean).join(', ');
  const trail = `${tried.length} of ${pairs.length} pairs${notes ? ` (${notes})` : ''} in ${objective.replays} replays from ${fmt(baseline)}: ${tried.join(', ')}`;
  if (!best) return { ok: false, kind: 'no-edit', message: `knob-search: ${trail}: nothing beat the start`, replays: objective.replays, measured: known.measured };
  return {
    ok: true,
    code: best.code,
    summary: `knob-search: ${best.description}; ${trail}; objective ${fmt(baseline)} -> ${fmt(best.objective)}`,
    replays: objective.replays,
    objective: best.objective,
    baseline,
    measured: known.measured,
    chosen: best.label,
  };
}

/** A pair as the edit line and the memo name it: `group.key=value`, strings quoted. */
function pairLabel(knob: InsertableKnob, value: string | number): string {
  return `${knob.group}.${knob.key}=${typeof value === 'string' ? `'${value}'` : value}`;
}
