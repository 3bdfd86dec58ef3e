import { SimulationInvariantError } from '../../common/errors.js';
import type { KindModel } from '../../policy/index.js';
import type { IterationModelView, NodeHardware, PrefillWork } from '../hardware.js';
import { OnlineLearner, type OnlineLearningOptions } from './online-learner.js';
import { buildLearningResult, type LearningResult } from './report.js';
import { LearningScorer } from './scorer.js';

/**
 * Online learning for a whole cluster, as the simulator drives it: one
 * OnlineLearner (the engine side, per node kind) fed with every iteration the
 * nodes run, and the scorer that grades its model against the truth. The
 * simulator owns the learning phase (who serves what); this owns the models.
 */
export class ClusterLearning {
  readonly learner: OnlineLearner;
  private readonly scorer = new LearningScorer();

  constructor(
    private readonly hardware: readonly NodeHardware[],
    options?: OnlineLearningOptions,
  ) {
    const setups = hardware.map((hw, id) => {
      if (!hw.engineSetup) throw new SimulationInvariantError(`node ${id}: online learning needs hw.engineSetup (or learning: 'given' with hw.engine)`);
      return { kind: hw.kind, shape: hw.engineSetup.shape, prior: hw.engineSetup.prior, maxDecodeBatch: hw.maxDecodeBatch };
    });
    this.learner = new OnlineLearner(setups, options);
  }

  /** The engine model of a node: its kind's, shared by all nodes of the kind. */
  engineOf(hw: NodeHardware): IterationModelView {
    return this.learner.model(hw.kind);
  }

  /** A prefill iteration a node ran at `now`: a sample until its kind's prefill converged, then scored. */
  prefill(hw: NodeHardware, now: number, work: readonly PrefillWork[], seconds: number): void {
    const predicted = this.learner.recordPrefill(hw.kind, now, work, seconds);
    if (predicted !== null && hw.truthReference) this.scorer.prefill(hw.kind, hw.truthReference.expected, work, predicted);
  }

  /** A decode epoch a node started at `now`; as prefill. */
  decode(hw: NodeHardware, now: number, batchSize: number, meanContextTokens: number, seconds: number): void {
    const predicted = this.learner.recordDecode(hw.kind, now, batchSize, seconds);
    if (predicted !== null && hw.truthReference) this.scorer.decode(hw.kind, hw.truthReference.expected, batchSize, meanContextTokens, predicted);
  }

  /** ctx.model: each kind's engine model as it stands (the prior, then the fit). */
  policyModel(): { byKind: Record<string, KindModel> } {
    const byKind: Record<string, KindModel> = {};
    for (const hw of this.hardware) {
      if (byKind[hw.kind]) continue;
      const model = this.learner.model(hw.kind);
      const { prefill, decode } = model.current();
      byKind[hw.kind] = {
        prefill,
        decode,
        kFraction: model.shape.expertsPerToken / model.shape.routedExperts,
        tFwd: model.shape.tokensFed,
        tAcc: hw.tokensPerDecodeIteration,
        maxDecodeBatch: hw.maxDecodeBatch,
      };
    }
    return { byKind };
  }

  result(collocatedUntilSeconds: number | null): LearningResult {
    const truthOf = (kind: string) => this.hardware.find((hw) => hw.kind === kind)?.truthReference?.coefficients ?? null;
    return buildLearningResult(this.learner.progress(), (kind) => this.scorer.totalsOf(kind), truthOf, collocatedUntilSeconds);
  }
}
