import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { InputError } from '../../common/errors.js';
import { encodeBlocks } from '../blocks.js';
import { TRACE_FORMAT, TRACE_VERSION, type RequestLine, type Trace, type TraceHeader } from '../trace-schema.js';

/** The model an imported trace runs on unless told otherwise: public traces name no model we simulate. */
export const DEFAULT_IMPORT_MODEL = 'glm-5.2';

export interface ImportOptions {
  /** Read at most this many requests (the first ones in the file). */
  maxLines?: number;
  /** Model profile written to the header; default glm-5.2. */
  model?: string;
}

/** One request of a public trace, before it becomes a trace line. */
export interface ImportedRow {
  /** Index of the row among the file's requests: becomes the request id, so an id leads back to its line. */
  index: number;
  /** Seconds from the start of the trace. */
  t: number;
  input: number;
  output: number;
  /** Ids of the prompt's full 512-token blocks, in order. */
  blocks: number[];
}

/** The file's lines with their 1-based numbers, blank lines dropped (a trailing newline is not a record). */
export function readNumberedLines(path: string): { line: number; text: string }[] {
  if (!existsSync(path)) throw new InputError('file not found', { file: path });
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: { line: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    // CRLF files: the \r belongs to the line ending, not to the last field.
    const text = lines[i]!.replace(/\r$/, '');
    if (text.trim() !== '') out.push({ line: i + 1, text });
  }
  return out;
}

/**
 * An open-loop trace without harness signals: one request line per row, no
 * `after` (each arrives at its own `t`), no produced blocks (the public
 * traces do not say which blocks an output fills). Rows are sorted by time,
 * stably, so that a file slightly out of order still replays in order and
 * signal inference sees requests as they arrived.
 */
export function buildImportedTrace(format: string, path: string, rows: ImportedRow[], options: ImportOptions): Trace {
  const sorted = rows.slice().sort((a, b) => a.t - b.t || a.index - b.index);
  const events: RequestLine[] = sorted.map((r) => ({
    type: 'request',
    id: r.index,
    version: 0,
    t: r.t,
    after: [],
    wait: 0,
    input: r.input,
    output: r.output,
    blocks: encodeBlocks(r.blocks),
    produced: [],
  }));
  const header: TraceHeader = {
    type: 'header',
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    model: options.model ?? DEFAULT_IMPORT_MODEL,
    source: `${format}:${basename(path)}`,
    ...(options.maxLines !== undefined ? { limit: options.maxLines } : {}),
  };
  return { header, events };
}

/** Check `maxLines` once, where the options come in. */
export function lineLimit(options: ImportOptions): number {
  const n = options.maxLines;
  if (n === undefined) return Infinity;
  if (!Number.isSafeInteger(n) || n < 1) throw new InputError(`maxLines must be a whole number >= 1, got ${n}`, { field: 'maxLines' });
  return n;
}
