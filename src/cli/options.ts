import { InvalidArgumentError } from 'commander';
import { z } from 'zod';

/**
 * An option parser that also says what the same setting looks like in a run
 * config file (src/cli/run-config.ts): the zod schema of its JSON value, with
 * the same bounds as the flag. The schema's output is what the parser returns.
 */
export type ConfigurableParser<T> = ((value: string) => T) & { readonly configSchema: z.ZodType<T> };

export function withConfigSchema<T>(parse: (value: string) => T, configSchema: z.ZodType<T>): ConfigurableParser<T> {
  return Object.assign(parse, { configSchema });
}

/** Option parsers for commander that reject bad numbers with a one-line message. */
export function intOption(name: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): ConfigurableParser<number> {
  return withConfigSchema((value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`${name} must be a whole number, got "${value}"`);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  }, z.number().int().min(min).max(max));
}

export function floatOption(name: string, min = -Infinity, max = Infinity): ConfigurableParser<number> {
  return withConfigSchema((value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`${name} must be a number, got "${value}"`);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  }, z.number().min(min).max(max));
}
