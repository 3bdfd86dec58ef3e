import { Simulator, type PolicyHook, type SimMetrics } from '../sim/index.js';
import { createTraceSource } from '../workload/index.js';
import { PolicyFailure, PolicySandbox, type SandboxOptions } from '../sandbox/index.js';
import { AutopoiesisError } from '../common/errors.js';
import { computeBreakdown, type Breakdown } from './breakdown.js';
import { givenCluster, snapshotEngineModel, type SnapshotEngineModel } from './engine-model.js';
import { sandboxHook } from './sandbox-policy.js';
import type { SchedCost } from './sched-cost.js';
import { replayOptions, type Snapshot } from './snapshot.js';
import { callKeys, packTrajectory, recordingHook, replayTrajectory, reusableCost, type Divergence, type TrajectoryResult } from './trajectory.js';

/** Behaviour features the MAP-Elites archive bins candidates by (design section 7). */
export interface Features {
  rescheduleCount: number;
  /** Mean charged scheduling CPU per policy call (shouldReschedule or schedule), ms. */
  schedCpuMsPerCall: number;
  nodesSwitchedPerReschedule: number;
}

export interface FailureCount {
  kind: string;
  count: number;
  firstMessage: string;
}

export interface Evaluation {
  policy: string;
  fitness: { tTotal: number };
  breakdown: Breakdown;
  metrics: SimMetrics;
  failures: FailureCount[];
  features: Features;
  finalSplit: string;
  splitTimeline: { at: number; split: string }[];
  /** False when the work did not finish within the cap (T_total is then a lower bound). */
  drained: boolean;
}

export interface EvaluateOptions {
  schedCost: SchedCost;
  sandbox?: SandboxOptions;
  /** The run stops at the latest at warm-up + window x this (default 4). */
  capFactor?: number;
  /**
   * Wall-clock budget of the whole evaluation, ms. Checked between policy
   * calls (each call has its own CPU and wall limits in the sandbox); past it
   * the evaluation throws EvaluationTimeout. It only aborts: it never changes
   * a result, so evaluations stay deterministic.
   */
  wallLimitMs?: number;
}

/** The evaluation ran past its wall-clock budget: the candidate is rejected, not retried. */
export class EvaluationTimeout extends AutopoiesisError {
  readonly exitCode = 1;
}

/**
 * Replay a snapshot under a policy (its source code, run in a sandbox) and
 * score it, the engine using the snapshot's model (engine-model.ts). A policy that fails to load is scored as the split it could not
 * change (the data plane keeps the last good plan), with the failure recorded.
 */
export function evaluatePolicy(snapshot: Snapshot, policy: { name: string; source: string }, options: EvaluateOptions): Evaluation {
  return evaluateTracked(snapshot, policy, options).evaluation;
}

/** evaluatePolicy, and (trajectory.ts) what it can reuse and record. */
export interface TrackedOptions extends EvaluateOptions {
  /** A packed trajectory to try first (the parent's on the same snapshot): reused if the policy answers every call as it did. */
  reuse?: Uint8Array;
  /** Return this evaluation's own trajectory, packed (for its children). */
  record?: boolean;
}

export interface TrackedEvaluation {
  evaluation: Evaluation;
  /** With `record`, under a deterministic cost, when the policy loaded and nothing was reused (a reused one's trajectory is `reuse`). */
  trajectory?: Uint8Array;
  /** With `trajectory`: its calls' answer keys, in order (trajectory.ts answerKey). */
  trajectoryKeys?: string[];
  /** The evaluation is the reused trajectory's: nothing was simulated. */
  reused: boolean;
}

export function evaluateTracked(snapshot: Snapshot, policy: { name: string; source: string }, options: TrackedOptions): TrackedEvaluation {
  return track(snapshot, policy, options, false) as TrackedEvaluation;
}

/**
 * evaluateTracked, except that a replay of `reuse` that gets another answer
 * stops there and says where, without a simulation: the caller may hold a
 * trajectory with that answer (src/evolve/pool/trajectory-reuse.ts).
 */
export function evaluateOrDiverge(
  snapshot: Snapshot,
  policy: { name: string; source: string },
  options: TrackedOptions & { reuse: Uint8Array },
): TrackedEvaluation | { divergence: Divergence } {
  return track(snapshot, policy, options, true);
}

function track(snapshot: Snapshot, policy: { name: string; source: string }, options: TrackedOptions, stopAtDivergence: boolean): TrackedEvaluation | { divergence: Divergence } {
  // The snapshot's, learned on its first evaluation in this process: not the candidate's time, so before its deadline.
  snapshotEngineModel(snapshot);
  const failures: FailureCount[] = [];
  let sandbox: PolicySandbox | undefined;
  try {
    sandbox = PolicySandbox.create(policy.source, { ...options.sandbox, seed: snapshot.seed, name: policy.name });
  } catch (error) {
    if (!(error instanceof PolicyFailure)) throw error;
    failures.push({ kind: error.kind, count: 1, firstMessage: error.message });
  }
  try {
    const inner = sandbox ? sandboxHook(sandbox, options.schedCost) : undefined;
    const hook = inner && options.wallLimitMs !== undefined ? withDeadline(inner, performance.now() + options.wallLimitMs, options.wallLimitMs) : inner;
    const tracked = hook !== undefined && reusableCost(options.schedCost);
    if (tracked && options.reuse) {
      const reused = replayTrajectory(options.reuse, hook, snapshot.warmupSeconds);
      if (reused.same) {
        const evaluation = evaluationOf(policy.name, snapshot, reused.result, reused.drained, failures);
        // Not packed again: its children would find the same ctxs, answers and plan costs in `reuse`, which is its trajectory too.
        return { evaluation, reused: true };
      }
      if (stopAtDivergence) return { divergence: reused.divergence };
      // A different answer somewhere: this sandbox has seen calls the replay would not make. Start afresh
      // (with the whole wall budget: the replay tried first is the evaluator's doing, not the candidate's).
      sandbox!.dispose();
      return evaluateTracked(snapshot, policy, { ...options, reuse: undefined });
    }
    const recorder = tracked && options.record ? recordingHook(hook) : undefined;
    const result = replaySnapshot(snapshot, recorder?.hook ?? hook, options.capFactor ?? 4);
    const evaluation = evaluationOf(policy.name, snapshot, result.sim, result.drained, failures);
    if (!recorder) return { evaluation, reused: false };
    return { evaluation, reused: false, trajectory: packTrajectory(recorder.calls, result.sim, result.drained), trajectoryKeys: callKeys(recorder.calls) };
  } finally {
    sandbox?.dispose();
  }
}

/** The evaluation of one replay's result (or of a reused trajectory's), after the failures of loading the policy. */
function evaluationOf(name: string, snapshot: Snapshot, sim: TrajectoryResult, drained: boolean, loadFailures: FailureCount[]): Evaluation {
  const failures = [...loadFailures, ...sim.policy.failures.map((f) => ({ ...f }))];
  const { tTotal, breakdown } = computeBreakdown(sim, snapshot.warmupSeconds, snapshot.roles.length, sim.policy.scoredCpuSeconds);
  const stats = sim.policy;
  return {
    policy: name,
    fitness: { tTotal },
    breakdown,
    metrics: sim.metrics,
    failures,
    features: {
      rescheduleCount: breakdown.reschedules,
      schedCpuMsPerCall: stats.calls > 0 ? (stats.cpuSeconds * 1000) / (stats.calls + stats.reschedules) : 0,
      nodesSwitchedPerReschedule: stats.plans.length > 0 ? stats.plans.reduce((s, p) => s + p.changedNodes.length, 0) / stats.plans.length : 0,
    },
    finalSplit: sim.finalSplit,
    splitTimeline: sim.splitTimeline,
    drained,
  };
}

function withDeadline(hook: PolicyHook, deadline: number, budgetMs: number): PolicyHook {
  const check = () => {
    if (performance.now() > deadline) throw new EvaluationTimeout(`evaluation exceeded its wall-clock budget of ${budgetMs} ms`);
  };
  return {
    shouldReschedule: (ctx) => (check(), hook.shouldReschedule(ctx)),
    schedule: (ctx) => (check(), hook.schedule(ctx)),
  };
}

/**
 * Run the snapshot's work to the end under a policy hook (or none: the split
 * stays), the engine using the snapshot's model, learned once per snapshot
 * (engine-model.ts): nothing is learned during the replay. `engineModel`:
 * another snapshot's (the suite replays its snapshot at other roles on the
 * snapshot's own model, the one policies are scored with).
 */
export function replaySnapshot(snapshot: Snapshot, policy: PolicyHook | undefined, capFactor: number, engineModel?: SnapshotEngineModel) {
  const source = createTraceSource(snapshot.trace, { name: snapshot.label });
  const { hardware, policyModel } = givenCluster(snapshot, source.model, engineModel);
  const cap = snapshot.warmupSeconds + snapshot.windowSeconds * capFactor;
  const sim = new Simulator({
    hardware,
    ...replayOptions(snapshot),
    source,
    scoredSeconds: cap - snapshot.warmupSeconds,
    policy,
    policyModel,
    learning: 'given',
    stopWhenDrained: true,
  });
  const result = sim.run();
  return { sim: result, drained: result.simSeconds < cap };
}
