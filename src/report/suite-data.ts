import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError } from '../common/errors.js';
import { parseOrThrow } from '../common/validate.js';

/**
 * A `suite --json` file (docs/suite.md), checked field by field: the report
 * draws only what it has validated, and anything else is one InputError
 * naming the file and the field. Extra fields are allowed (newer builds may
 * add some); missing or mistyped ones are not.
 */
const PolicyRowSchema = z.object({
  policy: z.string(),
  throughput: z.number(),
  ttftP95: z.number(),
  e2eMean: z.number(),
  tTotal: z.number(),
  transitions: z.number(),
  vsStaticPct: z.number(),
  oracleGapPct: z.number(),
  finalSplit: z.string(),
  failures: z.number(),
  drained: z.boolean(),
});

const ScenarioSchema = z.object({
  name: z.string(),
  seed: z.number(),
  contentHash: z.string(),
  oracle: z.object({
    candidates: z.number(),
    staticBest: z.object({ split: z.string(), throughput: z.number(), ttftP95: z.number(), e2eMean: z.number(), tTotal: z.number(), drained: z.boolean() }),
    window: z.object({
      throughput: z.number(),
      windowSeconds: z.number(),
      windows: z.array(z.object({ start: z.number(), end: z.number(), split: z.string(), completions: z.number() })),
    }),
  }),
  policies: z.array(PolicyRowSchema),
});

export const SuiteFileSchema = z.object({
  schedCost: z.string(),
  codeVersion: z.string(),
  scenarios: z.array(ScenarioSchema).min(1),
});

export type SuiteData = z.output<typeof SuiteFileSchema>;

export function readSuiteFile(path: string): SuiteData {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'no such suite file' : code === 'EISDIR' ? 'is a directory, not a suite file' : `cannot read the suite file (${code ?? 'error'})`, { file: path });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError('not JSON (expected the output of `autopoiesis suite --json`)', { file: path });
  }
  return parseOrThrow(SuiteFileSchema, value, { file: path });
}
