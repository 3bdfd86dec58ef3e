import { z } from 'zod';
import { InputError } from '../common/errors.js';
import { parseOrThrow } from '../common/validate.js';

/**
 * The JSON columns (runs.config, cycles.snapshot, candidates.breakdown,
 * metrics, features, run_state.value) and their schemas. Reads are validated
 * because the file is user-editable (`sqlite3 runs/x.db`); writes are checked
 * against the same schema after a JSON round trip, so what we store is what
 * we can read back (a NaN in a breakdown would otherwise become null and make
 * the row unreadable later).
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const JsonValueSchema = z.json() as z.ZodType<JsonValue>;
export const JsonObjectSchema = z.record(z.string(), JsonValueSchema);
/** breakdown and features: named finite numbers (seconds, counts, ms). */
export const NumberRecordSchema = z.record(z.string(), z.number());

export function encodeJson<S extends z.ZodType>(schema: S, value: unknown, field: string): string {
  assertPlainJson(value, field);
  const text = JSON.stringify(value);
  const check = schema.safeParse(JSON.parse(text));
  if (!check.success) {
    const issue = check.error.issues[0]!;
    throw new TypeError(`lineage store: ${[field, ...issue.path.map(String)].join('.')}: ${issue.message}`);
  }
  return text;
}

/** Parse a JSON column of a row; a bad value is an InputError naming the file, table, row and column. */
export function decodeJson<S extends z.ZodType>(schema: S, text: string, file: string, field: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError('is not valid JSON', { file, field });
  }
  return parseOrThrow(schema, value, { file, field });
}

export function decodeNullableJson<S extends z.ZodType>(schema: S, text: string | null, file: string, field: string): z.output<S> | null {
  return text === null ? null : decodeJson(schema, text, file, field);
}

/**
 * JSON.stringify is lossy without a word: NaN and Infinity become null, a Map
 * or a Set becomes {}, a Date a string. For a checkpoint that a resumed run
 * trusts, that would be a silent bug, so anything that does not survive the
 * round trip unchanged is refused (TypeError: the caller's bug). Properties
 * whose value is undefined are allowed: they read back as absent.
 */
function assertPlainJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return;
    throw new TypeError(`lineage store: ${path} is ${value}, which JSON cannot hold`);
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertPlainJson(item, `${path}.${i}`));
    return;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError(`lineage store: ${path} is a ${proto?.constructor?.name ?? 'non-plain object'}, not plain JSON data`);
    }
    for (const [key, item] of Object.entries(value)) if (item !== undefined) assertPlainJson(item, `${path}.${key}`);
    return;
  }
  throw new TypeError(`lineage store: ${path} is a ${typeof value}, not JSON data`);
}
