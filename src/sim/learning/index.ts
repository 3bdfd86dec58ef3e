/** Online learning of the iteration-time model: NNLS and the windowed fitter. */
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
  type IterationFitterOptions,
  type PrefillSample,
} from './iteration-fitter.js';
