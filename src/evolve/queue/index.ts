/** Candidate evaluations across machines as BullMQ jobs (the transport is src/queue): coordinator side and worker side. */
export { parseQueueAddress, describeAddress, connectionOf, DEFAULT_QUEUE, SETUP_PREFIX, type QueueAddress } from '../../queue/index.js';
export { QueueEvaluator, type QueueEvaluatorOptions, type QueueStatus } from './coordinator.js';
export { evolveJobHandler } from './worker.js';
export { jobIdOf, encodeSetup } from './payload.js';
