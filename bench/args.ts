/**
 * Flags of a benchmark. Every bench used to read process.argv by hand, so a
 * misspelt or unknown flag was ignored and `--help` started a run of an hour
 * with the defaults. Here: node:util's strict parseArgs, `--help` printing
 * the flags, and a bad flag or value giving one line and exit 2 before
 * anything runs.
 */
import { parseArgs } from 'node:util';
import { AutopoiesisError } from '../src/common/errors.js';

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** For the help text: what the flag does and its default. */
  help: string;
}

export type FlagValues<S extends Record<string, FlagSpec>> = {
  [K in keyof S]: S[K]['type'] extends 'boolean' ? boolean : string | undefined;
};

export class BenchUsageError extends Error {}

/** The flags of `bench:<name>` from `argv` (default: this process's), or a usage error. */
export function parseBenchFlags<S extends Record<string, FlagSpec>>(name: string, spec: S, argv: readonly string[]): FlagValues<S> | 'help' {
  const options = Object.fromEntries(Object.entries(spec).map(([flag, s]) => [flag, { type: s.type }]));
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new BenchUsageError(`bench:${name}: ${(error as Error).message.split('\n')[0]} (see --help)`);
  }
  if (values.help) return 'help';
  const out: Record<string, unknown> = {};
  for (const [flag, s] of Object.entries(spec)) out[flag] = s.type === 'boolean' ? values[flag] === true : values[flag];
  return out as FlagValues<S>;
}

export function helpText<S extends Record<string, FlagSpec>>(name: string, summary: string, spec: S): string {
  const width = Math.max(...Object.keys(spec).map((f) => f.length + (spec[f]!.type === 'string' ? 6 : 0)), 4);
  const lines = Object.entries(spec).map(([flag, s]) => `  --${(flag + (s.type === 'string' ? ' VALUE' : '')).padEnd(width)}  ${s.help}`);
  return [`npm run bench:${name} [-- FLAGS]: ${summary}`, '', ...lines, `  --${'help'.padEnd(width)}  this text`].join('\n');
}

/**
 * parseBenchFlags for a bench's entry point: prints the help and exits 0 on
 * --help, prints the usage error and exits 2 on a bad flag.
 */
export function benchFlags<S extends Record<string, FlagSpec>>(name: string, summary: string, spec: S): FlagValues<S> {
  try {
    const parsed = parseBenchFlags(name, spec, process.argv.slice(2));
    if (parsed === 'help') {
      console.log(helpText(name, summary, spec));
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    return exitWith(error.message);
  }
}

/** A usage error found after parsing (a value out of its set): one line naming the bench, exit 2. */
export function benchUsageExit(name: string, message: string): never {
  return exitWith(`bench:${name}: ${message}`);
}

/** Reading what the user named (a scenario, a policy file): an error of theirs (exit code 2) is one line naming the bench, exit 2; anything else is thrown. */
export function benchInput<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof AutopoiesisError && error.exitCode === 2) return benchUsageExit(name, error.message);
    throw error;
  }
}

function exitWith(line: string): never {
  console.error(line);
  process.exit(2);
}

/** A flag's number: `fallback` when absent; exit 2 naming the flag when not a number in range. */
export function numberFlag(name: string, flag: string, value: string | undefined, fallback: number, rule: { integer?: boolean; min?: number } = {}): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  const min = rule.min ?? -Infinity;
  if (value.trim() === '' || !Number.isFinite(n) || (rule.integer && !Number.isInteger(n)) || n < min) {
    benchUsageExit(name, `--${flag} ${JSON.stringify(value)}: expected ${rule.integer ? 'a whole number' : 'a number'}${Number.isFinite(min) ? ` >= ${min}` : ''}`);
  }
  return n;
}
