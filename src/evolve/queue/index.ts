/** Candidate evaluations across machines: a BullMQ queue on Redis (coordinator side and worker side). */
export { parseQueueAddress, describeAddress, connectionOf, DEFAULT_QUEUE, type QueueAddress } from './address.js';
export { QueueEvaluator, type QueueEvaluatorOptions, type QueueStatus } from './coordinator.js';
export { QueueWorker, type QueueWorkerOptions } from './worker.js';
export { SETUP_PREFIX, jobIdOf, encodeSetup } from './payload.js';
