import { Rng } from '../common/rng.js';
import type { NodeHardware } from './hardware.js';
import { priorCoefficients, type EngineCoefficients } from './learning/prior.js';
import { IterationTruth, gpuTransferTime, kvLoadTime, rankLoadTime, restartSeconds, type DecodeShape } from './perf/index.js';
import { coefficientsFor, kvCapacity, loadModel, loadNodeKind, type ModelProfile, type NodeKind } from './profiles/index.js';
import type { PolicyCtx } from './policy-hook.js';

/**
 * Build one node's hardware from its node-kind profile and the model it
 * serves. The truth draws its noise from a stream of its own per node. The
 * engine gets no model of it: only the public facts it learns from (phi(B)'s
 * shape and a prior from the profiles' public values); the simulator fits
 * the coefficients online. The truth's coefficients go to `truthReference`,
 * which only the scorer of the learned model reads.
 */
export function buildNodeHardware(kind: NodeKind, model: ModelProfile, seed: number, nodeId: number): NodeHardware {
  const spec = coefficientsFor(model, kind);
  const truth = new IterationTruth(spec, Rng.derive(seed, `truth/${nodeId}`));
  const capacity = kvCapacity(kind, model);
  return {
    kind: kind.name,
    truth,
    engineSetup: { shape: engineShape(model), prior: enginePrior(kind, model) },
    truthReference: { expected: truth.expected, coefficients: { prefill: { ...spec.prefill }, decode: { ...spec.decode } } },
    l1Blocks: capacity.gpuBlocks,
    l2Blocks: capacity.hostBlocks,
    maxPrefillBatchTokens: kind.batch.maxPrefillTokens,
    maxDecodeBatch: kind.batch.maxDecodeRequests,
    tokensPerDecodeIteration: model.speculative.tokensAccepted,
    fetchSeconds: (peerTokens, hostTokens) => kvLoadTime(kind, model, peerTokens, hostTokens),
    layerwiseLoad: { seconds: (tokens) => rankLoadTime(kind, model, tokens), layers: model.shape.layers },
    transferSeconds: (tokens) => gpuTransferTime(kind, model, tokens),
    restartSeconds: (u) => restartSeconds(kind, u),
  };
}

/** Load the node kinds (one per node) and the model, and build every node's hardware. */
export function buildCluster(kindNames: readonly string[], modelName: string, seed: number): { hardware: NodeHardware[]; policyModel: PolicyCtx['model'] } {
  const model = loadModel(modelName);
  const kinds = new Map<string, NodeKind>();
  for (const name of kindNames) if (!kinds.has(name)) kinds.set(name, loadNodeKind(name));
  return buildClusterFor(kindNames.map((name) => kinds.get(name)!), model, seed);
}

/**
 * As buildCluster, from loaded profiles (tests build clusters from modified
 * ones). `policyModel` is ctx.model before anything is learned: the prior of
 * each kind (the simulator replaces it with the fitted model as it learns).
 */
export function buildClusterFor(kinds: readonly NodeKind[], model: ModelProfile, seed: number): { hardware: NodeHardware[]; policyModel: PolicyCtx['model'] } {
  const hardware = kinds.map((kind, id) => buildNodeHardware(kind, model, seed, id));
  const byKind: PolicyCtx['model']['byKind'] = {};
  for (const kind of kinds) {
    if (byKind[kind.name]) continue;
    const shape = engineShape(model);
    const prior = enginePrior(kind, model);
    byKind[kind.name] = {
      prefill: { ...prior.prefill },
      decode: { ...prior.decode },
      kFraction: shape.expertsPerToken / shape.routedExperts,
      tFwd: shape.tokensFed,
      tAcc: model.speculative.tokensAccepted,
      maxDecodeBatch: kind.batch.maxDecodeRequests,
    };
  }
  return { hardware, policyModel: { byKind } };
}

/** phi(B)'s shape: the model's architecture and speculative decoding, which the engine knows. */
function engineShape(model: ModelProfile): DecodeShape {
  return { routedExperts: model.shape.routedExperts, expertsPerToken: model.shape.expertsPerToken, tokensFed: model.speculative.tokensFed };
}

/** The prior from public values only (model shape, the kind's links and relative speeds), not the truth's coefficients. */
function enginePrior(kind: NodeKind, model: ModelProfile): EngineCoefficients {
  return priorCoefficients({
    kvBytesPerToken: model.shape.kvBytesPerToken,
    hostToGpuBandwidth: kind.transfer.hostToGpuBandwidth,
    prefillComputeSpeed: kind.relativeSpeed.prefillCompute,
    decodeMemorySpeed: kind.relativeSpeed.decodeMemory,
  });
}
