import type { Job } from 'bullmq';
import type { BlobSource, JobHandler } from '../queue/index.js';
import { SuitePool } from './pool.js';
import { encodeSuiteAnswer, SUITE_JOB, type SuiteJobData } from './queue-jobs.js';
import type { PolicyTask, StaticTask } from './tasks.js';

/** Snapshots a worker keeps (shared with its threads); tasks come scenario by scenario. */
const KEPT_SNAPSHOTS = 4;

/**
 * The worker's side of the suite's jobs: each run on a SuitePool of
 * `concurrency` threads (never in the main thread, which renews the job
 * locks), exactly as the local suite runs it. A snapshot is fetched once and
 * handed to the threads as shared bytes (no copy per job); each thread
 * deserialises it once (snapshot-source.ts).
 */
export function suiteJobHandler(concurrency: number): JobHandler {
  let pool: SuitePool | undefined;
  const snapshots = new Map<string, Promise<SharedArrayBuffer>>();

  function bytesOf(sha: string, blobs: BlobSource): Promise<SharedArrayBuffer> {
    const known = snapshots.get(sha);
    if (known) return known;
    const fetched = blobs.get(sha, 'snapshot').then((bytes) => {
      const shared = new SharedArrayBuffer(bytes.length);
      new Uint8Array(shared).set(bytes);
      return shared;
    });
    // A failed fetch is not remembered: the job's retry fetches again.
    fetched.catch(() => snapshots.delete(sha));
    snapshots.set(sha, fetched);
    while (snapshots.size > KEPT_SNAPSHOTS) snapshots.delete(snapshots.keys().next().value!);
    return fetched;
  }

  return {
    names: [SUITE_JOB],
    async process(job: Job, blobs: BlobSource): Promise<string> {
      const { snapshot, task } = job.data as SuiteJobData;
      const source = { kind: 'serialized' as const, key: snapshot, bytes: await bytesOf(snapshot, blobs) };
      pool ??= new SuitePool(concurrency, { threaded: true });
      // A thrown error (a broken worker thread) is ours: BullMQ retries the job. A policy's failures are in its Evaluation.
      const answer = task.kind === 'static' ? await pool.run({ ...task, source } as StaticTask) : await pool.run({ ...task, source } as PolicyTask);
      return encodeSuiteAnswer(answer);
    },
    async close(): Promise<void> {
      await pool?.close();
      pool = undefined;
    },
  };
}
