import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { InputError } from '../common/errors.js';
import { parseOrThrow } from '../common/validate.js';
import { TraceChecker } from './trace-check.js';
import { traceHeaderSchema, traceLineSchemas, type Trace, type TraceEvent, type TraceHeader } from './trace-schema.js';

/** Parse a whole JSONL trace; every error names the file, the 1-based line and the field. Blank lines are skipped. */
export function parseTrace(text: string, file: string): Trace {
  const lines = text.split('\n');
  let header: TraceHeader | undefined;
  const events: TraceEvent[] = [];
  const checker = new TraceChecker(file);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    const line = i + 1;
    const value = parseJsonLine(raw, file, line);
    if (!header) {
      if (value.type !== 'header') throw new InputError('the first line must be the header {"type":"header","format":"autopoiesis-trace",...}', { file, line, field: 'type' });
      header = parseOrThrow(traceHeaderSchema, value, { file, line });
      continue;
    }
    const type = value.type;
    const schema = typeof type === 'string' && Object.hasOwn(traceLineSchemas, type) ? traceLineSchemas[type as keyof typeof traceLineSchemas] : undefined;
    if (!schema) throw new InputError(`unknown type ${JSON.stringify(type)}; expected one of ${Object.keys(traceLineSchemas).join(', ')}`, { file, line, field: 'type' });
    const event = parseOrThrow(schema, value, { file, line }) as TraceEvent;
    checker.check(event, line);
    events.push(event);
  }
  if (!header) throw new InputError('empty trace: no header line', { file });
  return { header, events };
}

function parseJsonLine(raw: string, file: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new InputError(`not valid JSON: ${(error as Error).message}`, { file, line });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InputError('expected a JSON object', { file, line });
  return value as Record<string, unknown>;
}

export function readTrace(path: string): Trace {
  if (!existsSync(path)) throw new InputError('trace file not found', { file: path });
  return parseTrace(readFileSync(path, 'utf8'), path);
}

/** One JSON object per line, header first, times rounded to the microsecond. */
export function formatTrace(trace: Trace): string {
  const parts: string[] = [JSON.stringify(trace.header)];
  for (const e of trace.events) parts.push(JSON.stringify(e, roundTimes));
  return parts.join('\n') + '\n';
}

function roundTimes(key: string, value: unknown): unknown {
  return (key === 't' || key === 'wait') && typeof value === 'number' ? Math.round(value * 1e6) / 1e6 : value;
}

export function writeTrace(path: string, trace: Trace): void {
  writeFileSync(path, formatTrace(trace));
}
