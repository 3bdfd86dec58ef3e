/** Online learning of the iteration-time model (design: ./README.md). */
export { nnls, leastSquares, type NnlsOptions, type NnlsResult } from './nnls.js';
export {
  IterationFitter,
  isDecodeSample,
  predictDecode,
  predictPrefill,
  prefillSampleOf,
  reciprocalCondition,
  sampleCoverage,
  type DecodeSample,
  type FitError,
  type FittedCoefficients,
  type PhaseFit,
  type IterationFitterOptions,
  type PrefillSample,
} from './iteration-fitter.js';
export { GENERIC_PRIOR, priorCoefficients, type EngineCoefficients, type PriorFacts } from './prior.js';
export { LearnedIterationModel, type ModelSource } from './learned-model.js';
export { batchSizeGrid, decodeShift, prefillShift, type DecodeProbes, type PrefillProbe } from './convergence.js';
export { OnlineLearner, type KindSetup, type KindProgress, type OnlineLearningOptions, type PhaseProgress, type WindowCheck } from './online-learner.js';
export { coefficientCovariance, predictionError } from './precision.js';
export { WorkloadMeter, type WorkloadMeasures } from './workload-meter.js';
export { LearningScorer, type ScoreTotals, type TruthView } from './scorer.js';
export { buildLearningResult, givenLearningResult, type KindLearningResult, type LearningResult, type MapeFigures, type PhaseLearningResult } from './report.js';
export { ClusterLearning } from './cluster-learning.js';
