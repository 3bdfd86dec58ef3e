import { Rng } from '../common/rng.js';
import type { NodeHardware } from './hardware.js';
import { CoefficientModel, IterationTruth, gpuTransferTime, kvLoadTime, restartSeconds } from './perf/index.js';
import { coefficientsFor, kvCapacity, loadModel, loadNodeKind, type ModelProfile, type NodeKind } from './profiles/index.js';
import type { PolicyCtx } from './policy-hook.js';

/**
 * Build one node's hardware from its node-kind profile and the model it
 * serves. The truth draws its noise from a stream of its own per node; the
 * engine's model is the noise-free formula without the truth's context term
 * (the online-fitted model replaces it later).
 */
export function buildNodeHardware(kind: NodeKind, model: ModelProfile, seed: number, nodeId: number): NodeHardware {
  const spec = coefficientsFor(model, kind);
  const truth = new IterationTruth(spec, Rng.derive(seed, `truth/${nodeId}`));
  const engine = new CoefficientModel(spec.prefill, spec.decode, spec.shape);
  const capacity = kvCapacity(kind, model);
  return {
    kind: kind.name,
    truth,
    engine,
    l1Blocks: capacity.gpuBlocks,
    l2Blocks: capacity.hostBlocks,
    maxPrefillBatchTokens: kind.batch.maxPrefillTokens,
    maxDecodeBatch: kind.batch.maxDecodeRequests,
    tokensPerDecodeIteration: model.speculative.tokensAccepted,
    fetchSeconds: (peerTokens, hostTokens) => kvLoadTime(kind, model, peerTokens, hostTokens),
    transferSeconds: (tokens) => gpuTransferTime(kind, model, tokens),
    restartSeconds: (u) => restartSeconds(kind, u),
  };
}

/** Load the node kinds (one per node) and the model, and build every node's hardware. */
export function buildCluster(kindNames: readonly string[], modelName: string, seed: number): { hardware: NodeHardware[]; policyModel: PolicyCtx['model'] } {
  const model = loadModel(modelName);
  const kinds = new Map<string, NodeKind>();
  for (const name of kindNames) if (!kinds.has(name)) kinds.set(name, loadNodeKind(name));
  const hardware = kindNames.map((name, id) => buildNodeHardware(kinds.get(name)!, model, seed, id));
  const byKind: PolicyCtx['model']['byKind'] = {};
  for (const kind of kinds.values()) {
    const spec = coefficientsFor(model, kind);
    byKind[kind.name] = {
      prefill: { ...spec.prefill },
      decode: { ...spec.decode },
      kFraction: spec.shape.expertsPerToken / spec.shape.routedExperts,
      tFwd: spec.shape.tokensFed,
      tAcc: model.speculative.tokensAccepted,
      maxDecodeBatch: kind.batch.maxDecodeRequests,
    };
  }
  return { hardware, policyModel: { byKind } };
}
