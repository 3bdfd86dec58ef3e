import { deserialize, serialize } from 'node:v8';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Snapshot } from '../../evaluate/index.js';

/**
 * A snapshot serialised for the pool's workers without holding up the
 * caller's thread: a production window (thousands of trace events) takes
 * 50-100 ms to structured-clone in one go, and a pool clones its workerData
 * once per worker. Here the trace's events are serialised (v8, the structured
 * clone format: nothing is lost) in chunks, yielding to the event loop between
 * chunks, into SharedArrayBuffers that every worker reads without a copy.
 */
export interface PackedSnapshot {
  /** The snapshot with an empty event list (small: cloned with workerData). */
  shell: Snapshot;
  chunks: SharedArrayBuffer[];
}

/** Events per chunk: a few ms of serialisation each. */
const CHUNK_EVENTS = 400;

export async function packSnapshot(snapshot: Snapshot): Promise<PackedSnapshot> {
  const events = snapshot.trace.events;
  const chunks: SharedArrayBuffer[] = [];
  for (let i = 0; i < events.length; i += CHUNK_EVENTS) {
    const bytes = serialize(events.slice(i, i + CHUNK_EVENTS));
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    chunks.push(shared);
    await yieldToLoop();
  }
  return { shell: { ...snapshot, trace: { ...snapshot.trace, events: [] } }, chunks };
}

/** In the worker: the snapshot as it was given to packSnapshot. */
export function unpackSnapshot(packed: PackedSnapshot): Snapshot {
  const events = packed.chunks.flatMap((chunk) => deserialize(Buffer.from(new Uint8Array(chunk))) as Snapshot['trace']['events']);
  return { ...packed.shell, trace: { ...packed.shell.trace, events } };
}
