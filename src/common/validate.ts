import type { z } from 'zod';
import { InputError } from './errors.js';

/**
 * Parse with a zod schema; on failure throw one InputError naming the file,
 * line and the first offending field, e.g. `trace.jsonl:12: field blocks.3: ...`.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: { file?: string; line?: number; field?: string } = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = [where.field, ...issue.path.map(String)].filter((p) => p !== undefined && p !== '').join('.');
  throw new InputError(issue.message, { file: where.file, line: where.line, field: path || undefined });
}
