import { UsageError } from '../../common/errors.js';
import type { Trace } from '../trace-schema.js';
import { importAzure } from './azure.js';
import { inferSignals, type InferOptions } from './infer-signals.js';
import type { ImportOptions } from './imported-trace.js';
import { importMooncake } from './mooncake.js';

export { importMooncake, mooncakeLineSchema } from './mooncake.js';
export { importAzure, azureRowSchema } from './azure.js';
export { inferSignals, INFER_DEFAULTS, type InferOptions } from './infer-signals.js';
export { DEFAULT_IMPORT_MODEL, type ImportOptions } from './imported-trace.js';

export const IMPORT_FORMATS = { mooncake: importMooncake, azure: importAzure } as const;
export type ImportFormat = keyof typeof IMPORT_FORMATS;

export interface ImportTraceOptions extends ImportOptions {
  /** Infer branches, compactions and ends from the blocks (default true). */
  infer?: boolean;
  inference?: InferOptions;
}

/** Import a public trace in `format` and, unless `infer` is false, give it inferred harness signals. */
export function importTrace(format: string, path: string, options: ImportTraceOptions = {}): Trace {
  if (!Object.hasOwn(IMPORT_FORMATS, format)) throw new UsageError(`unknown trace format "${format}" (known: ${Object.keys(IMPORT_FORMATS).join(', ')})`);
  const trace = IMPORT_FORMATS[format as ImportFormat](path, options);
  return options.infer === false ? trace : inferSignals(trace, options.inference);
}
