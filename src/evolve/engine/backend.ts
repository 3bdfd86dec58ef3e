import type { EvaluatorPool, WorkerSetup } from '../pool/index.js';

/** What a run or a cycle evaluates with: EvaluatorPool's interface (a QueueEvaluator, src/evolve/queue, has it too). */
export type EvaluationBackend = Pick<EvaluatorPool, 'threads' | 'evaluate' | 'tune' | 'close'>;

/** Opens the evaluation backend for a run's setup (default: a local EvaluatorPool). */
export type BackendFactory = (setup: WorkerSetup & { threads?: number }) => Promise<EvaluationBackend>;
