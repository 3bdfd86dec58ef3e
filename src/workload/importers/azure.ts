import { z } from 'zod';
import { InputError } from '../../common/errors.js';
import { parseOrThrow } from '../../common/validate.js';
import { BLOCK_TOKENS } from '../blocks.js';
import type { Trace } from '../trace-schema.js';
import { buildImportedTrace, lineLimit, readNumberedLines, type ImportedRow, type ImportOptions } from './imported-trace.js';

const COLUMNS = ['TIMESTAMP', 'ContextTokens', 'GeneratedTokens'] as const;

/** `2023-11-16 18:15:46.6805900`: the release's format (no zone; only differences are used). */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;

/** Whole seconds since the epoch and the fraction apart, so that 7-digit fractions keep their precision. */
interface Instant {
  seconds: number;
  fraction: number;
}

const instant = z.string().transform((text, ctx): Instant => {
  const m = TIMESTAMP.exec(text.trim());
  const [y, mo, d, h, mi, s] = (m ?? []).slice(1, 7).map(Number) as number[];
  const ms = m ? Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) : NaN;
  // Date.UTC rolls 2023-02-30 over to March: a round trip catches impossible dates.
  const date = new Date(ms);
  if (!m || date.getUTCMonth() !== mo! - 1 || date.getUTCDate() !== d! || h! > 23 || mi! > 59 || s! > 59) {
    ctx.addIssue({ code: 'custom', message: `expected a time YYYY-MM-DD HH:MM:SS[.fffffff], got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return { seconds: ms / 1000, fraction: m[7] ? Number(`0.${m[7]}`) : 0 };
});

const tokens = z
  .string()
  .regex(/^\s*\d+\s*$/, 'expected a whole number of tokens')
  .transform(Number)
  .pipe(z.number().int().positive());

/** One data row of the Azure LLM inference trace (2023 release), by column name. */
export const azureRowSchema = z.object({
  TIMESTAMP: instant,
  ContextTokens: tokens,
  GeneratedTokens: tokens,
});

/**
 * Import an Azure LLM inference trace (CSV `TIMESTAMP,ContextTokens,GeneratedTokens`):
 * one request per row, `t` in seconds from the earliest row.
 *
 * The release carries no prefix information, so every request gets fresh
 * block ids for its full blocks: nothing can be reused, and the trace
 * measures the engine with prefix caching out of play. Columns are found by
 * name in the header row; quoted fields are not supported (the release has
 * none).
 */
export function importAzure(path: string, options: ImportOptions = {}): Trace {
  const limit = lineLimit(options);
  const lines = readNumberedLines(path);
  const head = lines[0];
  if (!head) throw new InputError(`empty file: expected a header row ${COLUMNS.join(',')}`, { file: path });
  const names = head.text.split(',').map((s) => s.trim());
  const at = COLUMNS.map((c) => names.indexOf(c));
  at.forEach((i, k) => {
    if (i < 0) throw new InputError(`the header row has no column ${COLUMNS[k]} (expected ${COLUMNS.join(',')})`, { file: path, line: head.line, field: COLUMNS[k] });
  });

  const parsed: { line: number; when: Instant; input: number; output: number }[] = [];
  for (const { line, text } of lines.slice(1)) {
    if (parsed.length >= limit) break;
    const cells = text.split(',');
    if (cells.length !== names.length) throw new InputError(`expected ${names.length} columns, got ${cells.length}`, { file: path, line });
    const row = parseOrThrow(azureRowSchema, Object.fromEntries(COLUMNS.map((c, k) => [c, cells[at[k]!]])), { file: path, line });
    parsed.push({ line, when: row.TIMESTAMP, input: row.ContextTokens, output: row.GeneratedTokens });
  }

  const first = parsed.reduce<Instant | undefined>((a, r) => (!a || before(r.when, a) ? r.when : a), undefined);
  let nextBlock = 0;
  const rows: ImportedRow[] = parsed.map((r, index) => {
    const count = Math.floor(r.input / BLOCK_TOKENS);
    const blocks = Array.from({ length: count }, (_, k) => nextBlock + k);
    nextBlock += count;
    return { index, t: r.when.seconds - first!.seconds + (r.when.fraction - first!.fraction), input: r.input, output: r.output, blocks };
  });
  return buildImportedTrace('azure', path, rows, options);
}

function before(a: Instant, b: Instant): boolean {
  return a.seconds < b.seconds || (a.seconds === b.seconds && a.fraction < b.fraction);
}
