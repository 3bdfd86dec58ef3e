import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Content-addressed blobs in Redis: what a run's jobs share (its snapshots,
 * limits, scheduling cost) is stored once under the sha256 of its bytes, and
 * a job carries only that address. Workers fetch a blob once per run.
 */
export const SETUP_PREFIX = 'autopoiesis:snapshot:';
/** A stored blob outlives its run by this long. */
const BLOB_TTL_S = 7 * 24 * 3600;

export interface Blob {
  sha: string;
  bytes: Buffer;
}

export function blobOf(bytes: Buffer): Blob {
  return { sha: createHash('sha256').update(bytes).digest('hex'), bytes };
}

/** Stores the blob unless it is there already (a resumed run or a second coordinator sends nothing). */
export async function putBlob(redis: Redis, blob: Blob): Promise<void> {
  const key = SETUP_PREFIX + blob.sha;
  if (await redis.expire(key, BLOB_TTL_S)) return;
  await redis.set(key, blob.bytes, 'EX', BLOB_TTL_S);
}

/** The blob's bytes, checked against their address; null when Redis does not hold it. */
export async function getBlob(redis: Redis, sha: string): Promise<Buffer | null> {
  const bytes = await redis.getBuffer(SETUP_PREFIX + sha);
  if (!bytes) return null;
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== sha) throw new Error(`stored blob ${sha} hashes to ${actual}`);
  return bytes;
}
