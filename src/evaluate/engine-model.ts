import { createHash } from 'node:crypto';
import { buildCluster, Simulator, type NodeHardware, type PolicyCtx } from '../sim/index.js';
import { LearnedIterationModel, type EngineCoefficients } from '../sim/learning/index.js';
import { createTraceSource, type Trace } from '../workload/index.js';
import { replayOptions, type Snapshot } from './snapshot.js';

/**
 * The engine's iteration-time model of a snapshot, learned once and used by
 * every replay of that snapshot (design: docs/simulator.md, "The engine model
 * of a snapshot").
 *
 * A snapshot is a window of a data plane that has been serving for a while:
 * its engine learned its model long before the window began, and serves the
 * window under the recorded roles. So the evaluator does not make each
 * candidate's replay bring the engine up again (a learning phase in which
 * every node serves both phases, then a fit); it learns the model once per
 * snapshot, on a reference replay of the snapshot's own work with no policy
 * (the recorded roles and knobs stay; online learning as the simulator does
 * it, with its learning phase), and then replays every candidate with that model
 * given (`learning: 'given'`): routing and ctx.model use it from t = 0 and
 * the warm-up serves under the recorded roles.
 *
 * The model is a function of the snapshot's content alone (never of a
 * candidate, of what was evaluated before, or of the machine), so two
 * candidates are scored under the same engine and a policy cannot influence
 * the model it is judged with.
 */
export type SnapshotEngineModel = Record<string, EngineCoefficients>;

/** The reference replay's cap in windows after the warm-up, as evaluatePolicy's default. */
const REFERENCE_CAP_FACTOR = 4;
/** Simulated seconds between two checks of whether the reference replay's model has settled (the learner's window). */
const SETTLED_CHECK_SECONDS = 10;
/** Models kept per process (the snapshots of a run, a suite, tests); the oldest goes first. */
const CACHE_LIMIT = 64;

const byDigest = new Map<string, SnapshotEngineModel>();
const digestOfSnapshot = new WeakMap<Snapshot, string>();
const digestOfTrace = new WeakMap<Trace, string>();

/**
 * The model the engine learns on the snapshot's work, per node kind: each
 * phase's converged fit, or its prior if that phase never converged.
 * Memoised by content digest (every field but the label), so rebuilt or
 * copied snapshots with the same content share it, in any worker.
 */
export function snapshotEngineModel(snapshot: Snapshot): SnapshotEngineModel {
  const digest = snapshotDigest(snapshot);
  const cached = byDigest.get(digest);
  if (cached) return cached;
  const model = learnOnce(snapshot);
  if (byDigest.size >= CACHE_LIMIT) byDigest.delete(byDigest.keys().next().value!);
  byDigest.set(digest, model);
  return model;
}

/** Forget every memoised model (tests: a model learned afresh must equal the memoised one). */
export function forgetSnapshotEngineModels(): void {
  byDigest.clear();
}

/**
 * The cluster of a replay with the snapshot's model given: each node's
 * engine is its kind's model (one instance per kind, as online learning
 * shares it), and ctx.model reports the same coefficients.
 */
export function givenCluster(
  snapshot: Snapshot,
  traceModel: string,
  model: SnapshotEngineModel = snapshotEngineModel(snapshot),
): { hardware: NodeHardware[]; policyModel: PolicyCtx['model'] } {
  const { hardware, policyModel } = buildCluster(snapshot.nodeKinds, traceModel, snapshot.seed);
  const engines = new Map<string, LearnedIterationModel>();
  const withEngine = hardware.map((hw) => {
    const coefficients = model[hw.kind]!;
    let engine = engines.get(hw.kind);
    if (!engine) engines.set(hw.kind, (engine = new LearnedIterationModel(hw.kind, hw.engineSetup!.shape, coefficients)));
    return { ...hw, engine };
  });
  const byKind: PolicyCtx['model']['byKind'] = {};
  for (const [kind, entry] of Object.entries(policyModel.byKind)) byKind[kind] = { ...entry, prefill: { ...model[kind]!.prefill }, decode: { ...model[kind]!.decode } };
  return { hardware: withEngine, policyModel: { byKind } };
}

/**
 * The reference replay: on until the model can no longer change
 * (Simulator.modelSettled: every phase converged, or the open ones can get
 * no sample any more), at the latest to the end of the work (online
 * learning goes on after the warm-up). Its learning result holds each
 * kind's model as it stood, which is the model at the end of the work: a
 * phase's model changes only when its fit converges.
 */
function learnOnce(snapshot: Snapshot): SnapshotEngineModel {
  const source = createTraceSource(snapshot.trace, { name: snapshot.label });
  const { hardware, policyModel } = buildCluster(snapshot.nodeKinds, source.model, snapshot.seed);
  const sim = new Simulator({
    hardware,
    ...replayOptions(snapshot),
    source,
    scoredSeconds: snapshot.windowSeconds * REFERENCE_CAP_FACTOR,
    policyModel,
    stopWhenDrained: true,
  });
  for (let t = 0; sim.advanceTo(t) && !sim.modelSettled; t += SETTLED_CHECK_SECONDS);
  const learning = sim.finish().learning;
  const model: SnapshotEngineModel = {};
  for (const [kind, k] of Object.entries(learning.byKind)) model[kind] = { prefill: { ...k.current.prefill }, decode: { ...k.current.decode } };
  return model;
}

function snapshotDigest(snapshot: Snapshot): string {
  const known = digestOfSnapshot.get(snapshot);
  if (known) return known;
  let trace = digestOfTrace.get(snapshot.trace);
  if (!trace) digestOfTrace.set(snapshot.trace, (trace = createHash('sha256').update(JSON.stringify(snapshot.trace)).digest('hex')));
  const { label: _label, trace: _trace, ...rest } = snapshot;
  const digest = createHash('sha256').update(trace).update('\0').update(JSON.stringify(rest)).digest('hex');
  digestOfSnapshot.set(snapshot, digest);
  return digest;
}
