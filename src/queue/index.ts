/**
 * Work across machines: a BullMQ queue on Redis, whatever the jobs compute
 * (evolve's candidate evaluations, the suite's runs). The coordinator side
 * (JobClient), the worker side (QueueWorker with one JobHandler per kind of
 * job) and content-addressed blobs. Depends on common only; evolve and suite
 * build their jobs on it.
 */
export { parseQueueAddress, describeAddress, connectionOf, DEFAULT_QUEUE, type QueueAddress } from './address.js';
export { SETUP_PREFIX, blobOf, putBlob, getBlob, type Blob } from './blob.js';
export { JobClient, type JobClientOptions, type JobReply, type CrashAnswer, type QueueStatus } from './client.js';
export { QueueWorker, type QueueWorkerOptions, type JobHandler, type BlobSource } from './worker.js';
