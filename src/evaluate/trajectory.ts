import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { isDeepStrictEqual } from 'node:util';
import type { PolicyAnswer, PolicyCtx, PolicyHook, SimResult } from '../sim/index.js';
import type { SchedCost } from './sched-cost.js';

/**
 * Trajectory reuse: a candidate that answers every policy call of its
 * parent's replay exactly as the parent did would have the parent's replay.
 * The simulator is deterministic and meets the policy only through its hook:
 * the ctx of each call is a function of the answers before it. So feeding the
 * child the parent's recorded ctxs, in order, and comparing its answers is
 * the whole replay for such a child: no simulation. About half the children
 * of structural edits are such neutral variants on one snapshot (an edit in
 * a branch the window never takes; a literal no decision crosses).
 *
 * What may differ is the charged cost of a call that produces no plan (a
 * `false` from shouldReschedule, a failed call): it only adds to the policy's
 * CPU totals, which are summed again here in the simulator's order. The cost
 * of a call that produces a plan delays the plan, and so the trajectory: it
 * must be equal. Only deterministic sched costs qualify (not `measured`).
 *
 * Any trajectory on the snapshot will do, not only the parent's: the first
 * call's ctx is the snapshot's own, and each later one follows from the
 * answers before it. So each call gets a key (answerKey) and a replay that
 * diverges says where and with which key; a caller holding other
 * trajectories can pick one that shares the answers so far and gives that
 * answer there (src/evolve/pool/trajectory-reuse.ts), and replay that.
 */

/** One policy call as the simulator made it: the ctx (v8-serialized, so -0, NaN and undefined survive) and the answer. */
interface RecordedCall {
  phase: 'should' | 'schedule';
  now: number;
  ctx: Uint8Array;
  answer: PolicyAnswer<unknown>;
  key: string;
}

/** What a replay gives that a reused one needs: the result fields an Evaluation is built from. */
export type TrajectoryResult = Pick<SimResult, 'metrics' | 'transitions' | 'splitTimeline' | 'finalSplit' | 'policy' | 'simSeconds'>;

interface Trajectory {
  calls: RecordedCall[];
  result: TrajectoryResult;
  drained: boolean;
}

/** Whether answers can be reused under this cost: the charge must not depend on the machine. */
export function reusableCost(cost: SchedCost): boolean {
  return cost.kind !== 'measured';
}

/** A hook that records every call it passes on. */
export function recordingHook(inner: PolicyHook): { hook: PolicyHook; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  // The ctx as the policy got it (serialized before the call), the answer as it gave it (cloned: the simulator keeps the plan).
  const record = <T>(phase: RecordedCall['phase'], ctx: PolicyCtx, call: () => PolicyAnswer<T>): PolicyAnswer<T> => {
    const packed = serialize(ctx);
    const answer = call();
    calls.push({ phase, now: ctx.now, ctx: packed, answer: structuredClone(answer), key: answerKey(phase, answer) });
    return answer;
  };
  return {
    calls,
    hook: {
      shouldReschedule: (ctx) => record('should', ctx, () => inner.shouldReschedule(ctx)),
      schedule: (ctx) => record('schedule', ctx, () => inner.schedule(ctx)),
    },
  };
}

export function packTrajectory(calls: RecordedCall[], result: TrajectoryResult, drained: boolean): Uint8Array {
  const { metrics, transitions, splitTimeline, finalSplit, policy, simSeconds } = result;
  const trajectory: Trajectory = { calls, result: { metrics, transitions, splitTimeline, finalSplit, policy, simSeconds }, drained };
  return serialize(trajectory);
}

/** The keys of a recording's calls, in order (what a caller matches trajectories by). */
export function callKeys(calls: readonly RecordedCall[]): string[] {
  return calls.map((c) => c.key);
}

/**
 * A hint for matching answers across trajectories: equal answers (sameAnswer)
 * give equal keys when their data is built alike, the usual case. A collision
 * or a miss costs time only: a trajectory picked by key is replayed, and every
 * answer compared again.
 */
export function answerKey(phase: RecordedCall['phase'], answer: PolicyAnswer<unknown>): string {
  const f = answer.ok ? null : (answer as { failure: { kind?: unknown; phase?: unknown; message?: unknown } }).failure;
  const what = answer.ok ? answer.value : [f?.kind, f?.phase, f?.message];
  const cost = leadsToPlan(phase, answer) ? answer.cpuSeconds : null;
  return createHash('sha1').update(serialize([phase, answer.ok, what, cost])).digest('base64').slice(0, 16);
}

/** Trajectories a caller tries per evaluation before simulating it: each try costs a sandbox and the calls up to its divergence. */
export const MAX_TRAJECTORY_TRIES = 4;

/** Where a replay first got another answer: the call's index in the trajectory and the new answer's key. */
export interface Divergence {
  at: number;
  key: string;
}

/**
 * Whether a trajectory with `keys` may be the one a replay of `tried` (its
 * keys) should have followed: the same answers before the divergence, and the
 * replayed policy's answer there. Keys are hints: the replay checks again.
 */
export function continuesAt(keys: readonly string[], tried: readonly string[], d: Divergence): boolean {
  if (keys.length <= d.at || keys[d.at] !== d.key) return false;
  for (let i = 0; i < d.at; i++) if (keys[i] !== tried[i]) return false;
  return true;
}

/**
 * Feed a packed trajectory's ctxs to `hook`, in order. Same answers (and the
 * same cost wherever a cost delays a plan) at every call: the trajectory's
 * result, its policy CPU summed again from this hook's charges. The packed
 * trajectory then serves as the hook's own: only costs that are never
 * compared differ. Any other answer: where (replay it, or try a trajectory
 * with that answer there).
 */
export function replayTrajectory(
  packed: Uint8Array,
  hook: PolicyHook,
  warmupSeconds: number,
): { same: true; result: TrajectoryResult; drained: boolean } | { same: false; divergence: Divergence } {
  const trajectory = deserialize(packed) as Trajectory;
  let cpuSeconds = 0;
  let scoredCpuSeconds = 0;
  for (let i = 0; i < trajectory.calls.length; i++) {
    const call = trajectory.calls[i]!;
    const ctx = deserialize(call.ctx) as PolicyCtx;
    const answer = call.phase === 'should' ? hook.shouldReschedule(ctx) : hook.schedule(ctx);
    if (!sameAnswer(call, answer)) return { same: false, divergence: { at: i, key: answerKey(call.phase, answer) } };
    // As the simulator's policy driver charges it (chargePolicy): the same additions in the same order.
    cpuSeconds += answer.cpuSeconds;
    if (call.now >= warmupSeconds) scoredCpuSeconds += answer.cpuSeconds;
  }
  const policy = { ...trajectory.result.policy, cpuSeconds, scoredCpuSeconds };
  return { same: true, result: { ...trajectory.result, policy }, drained: trajectory.drained };
}

/** The answer is the recorded one; its cost may differ only where no plan follows from it. */
function sameAnswer(call: RecordedCall, answer: PolicyAnswer<unknown>): boolean {
  const recorded = call.answer;
  if (recorded.ok !== answer.ok) return false;
  if (recorded.ok && answer.ok) {
    if (!isDeepStrictEqual(recorded.value, answer.value)) return false;
  } else if (!isDeepStrictEqual((recorded as { failure: unknown }).failure, (answer as { failure: unknown }).failure)) {
    return false;
  }
  return !leadsToPlan(call.phase, answer) || Object.is(recorded.cpuSeconds, answer.cpuSeconds);
}

/** A plan follows from the answer, so its cost delays the plan. */
function leadsToPlan(phase: RecordedCall['phase'], answer: PolicyAnswer<unknown>): boolean {
  return answer.ok && (phase === 'schedule' || answer.value === true);
}
