import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../../src/common/package-root.js';

/** The public traces shipped beside the repository (../shared/traces), and whether they are there. */
export const TRACES_DIR = join(packageRoot(), '..', 'shared', 'traces');
export const HAVE_TRACES = existsSync(join(TRACES_DIR, 'mooncake-conversation.jsonl')) && existsSync(join(TRACES_DIR, 'azure-llm-conv-2023.csv'));
export const MOONCAKE_FILE = join(TRACES_DIR, 'mooncake-conversation.jsonl');
export const AZURE_FILE = join(TRACES_DIR, 'azure-llm-conv-2023.csv');
/** Title suffix that says why a suite did not run. */
export const SKIP_NOTE = HAVE_TRACES ? '' : ` (SKIPPED: public traces not found in ${TRACES_DIR})`;

const dir = mkdtempSync(join(tmpdir(), 'importers-'));

/** Write a hand-made input file; returns its path. */
export function handMade(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

export function tmpPath(name: string): string {
  return join(dir, name);
}

/** A Mooncake line; `blocks` full blocks unless `input` says otherwise. */
export function mooncakeLine(timestampMs: number, hashIds: number[], input = hashIds.length * 512, output = 10): string {
  return JSON.stringify({ timestamp: timestampMs, input_length: input, output_length: output, hash_ids: hashIds });
}
