/** Iteration-time model, data-movement times and the closed-form decode batch. */
export * from './coefficients.js';
export * from './formulas.js';
export { CoefficientModel, prefillAloneTime, type IterationModel } from './iteration-model.js';
export * from './truth.js';
export * from './transfer.js';
export * from './restart.js';
export * from './decode-batch.js';
export * from './layerwise-load.js';
