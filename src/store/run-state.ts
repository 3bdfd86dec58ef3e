import { NOW_SQL, prepared, type Db } from './connection.js';
import { ITERATION_KEY } from './iterations.js';
import { decodeJson, encodeJson, JsonValueSchema, type JsonValue } from './json.js';
import { requireRun } from './runs.js';
import type { CheckpointState } from './types.js';

/**
 * Run state written between iterations (the continuous mode saves its warm
 * start and the simulated time reached when a cycle ends). Same table and
 * keys as the iteration checkpoint; the key 'iteration' stays reserved to
 * commitIteration, so this can never move a run's checkpoint.
 */
export function saveRunState(db: Db, runId: number, entries: CheckpointState): void {
  if (Object.hasOwn(entries, ITERATION_KEY)) throw new TypeError(`lineage store: run state key '${ITERATION_KEY}' is reserved`);
  const encoded = Object.entries(entries).map(([key, value]) => [key, encodeJson(JsonValueSchema, value, `run_state.${key}`)] as const);
  db.transaction(() => {
    requireRun(db, runId);
    const upsert = prepared(
      db,
      `INSERT INTO run_state (run, key, value) VALUES (?, ?, ?)
       ON CONFLICT (run, key) DO UPDATE SET value = excluded.value, updated_at = ${NOW_SQL}`,
    );
    for (const [key, value] of encoded) upsert.run(runId, key, value);
  }).immediate();
}

export function loadRunState(db: Db, runId: number): Record<string, JsonValue> {
  const rows = prepared<{ key: string; value: string }>(db, 'SELECT key, value FROM run_state WHERE run = ? ORDER BY key').all(runId);
  const state: Record<string, JsonValue> = {};
  for (const row of rows) {
    if (row.key !== ITERATION_KEY) state[row.key] = decodeJson(JsonValueSchema, row.value, db.name, `run_state.${runId}.${row.key}`);
  }
  return state;
}
