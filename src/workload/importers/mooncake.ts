import { z } from 'zod';
import { InputError } from '../../common/errors.js';
import { parseOrThrow } from '../../common/validate.js';
import { BLOCK_TOKENS } from '../blocks.js';
import type { Trace } from '../trace-schema.js';
import { buildImportedTrace, lineLimit, readNumberedLines, type ImportedRow, type ImportOptions } from './imported-trace.js';

/**
 * One line of a Mooncake trace (FAST'25 release): arrival in ms from the
 * start, prompt and output lengths, and `hash_ids`, the prompt's 512-token
 * blocks as remapped prefix hashes. Unknown keys are ignored (later releases
 * may add some).
 */
export const mooncakeLineSchema = z.object({
  timestamp: z.number().nonnegative(),
  input_length: z.number().int().positive(),
  output_length: z.number().int().positive(),
  hash_ids: z.array(z.number().int().nonnegative()),
});

/**
 * Import a Mooncake JSONL trace: one request per line at `timestamp / 1000` s.
 *
 * `hash_ids` map directly to block ids: an id is a hash of its whole prefix,
 * which is exactly what our chained block ids mean. The release lists
 * ceil(input / 512) ids, the last one for the partial tail block; only full
 * blocks can be reused, so ids past floor(input / 512) are dropped. The
 * chaining is checked (an id always follows the same id), because the KV
 * model matches prefixes by id alone and would silently mis-count a file
 * that breaks it.
 */
export function importMooncake(path: string, options: ImportOptions = {}): Trace {
  const limit = lineLimit(options);
  const predecessor = new Map<number, number>();
  const rows: ImportedRow[] = [];
  for (const { line, text } of readNumberedLines(path)) {
    if (rows.length >= limit) break;
    const raw = parseJson(text, path, line);
    const r = parseOrThrow(mooncakeLineSchema, raw, { file: path, line });
    const blocks = r.hash_ids.slice(0, Math.floor(r.input_length / BLOCK_TOKENS));
    checkChained(blocks, predecessor, path, line);
    rows.push({ index: rows.length, t: r.timestamp / 1000, input: r.input_length, output: r.output_length, blocks });
  }
  return buildImportedTrace('mooncake', path, rows, options);
}

function parseJson(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`not valid JSON: ${(error as Error).message}`, { file, line });
  }
}

/** -1 stands for "start of the prompt". */
const START = -1;

function checkChained(blocks: readonly number[], predecessor: Map<number, number>, file: string, line: number): void {
  for (let i = 0; i < blocks.length; i++) {
    const id = blocks[i]!;
    const before = i === 0 ? START : blocks[i - 1]!;
    const known = predecessor.get(id);
    if (known === undefined) predecessor.set(id, before);
    else if (known !== before) {
      const was = known === START ? 'at the start of a prompt' : `after ${known}`;
      const now = before === START ? 'at the start of the prompt' : `after ${before}`;
      throw new InputError(`block ${id} comes ${now} here but ${was} on an earlier line; hash_ids must be prefix hashes`, { file, line, field: `hash_ids.${i}` });
    }
  }
}
