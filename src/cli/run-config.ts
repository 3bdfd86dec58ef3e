import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { z } from 'zod';
import { AutopoiesisError } from '../common/errors.js';

/** The commands that take `--config FILE.json`; also the section names of a file with one section per command. */
export const RUN_CONFIG_COMMANDS = ['evolve', 'serve', 'suite'] as const;

/** Keys starting with this are comments, at the top and in every section; their values are not read. */
export const COMMENT_PREFIX = '//';

/** A run config file that cannot be used: one line naming the command, the file and the key. Exit 2. */
export class RunConfigError extends AutopoiesisError {
  readonly exitCode = 2;
  constructor(
    readonly command: string,
    readonly file: string,
    message: string,
    readonly key?: string,
  ) {
    super(`${command}: ${file}: ${message}`);
  }
}

/** The config key of an option: its commander attribute name (`--window-min` -> `windowMin`, `--no-cache` -> `cache`). */
export function configKey(option: Option): string {
  return option.attributeName();
}

/** The options of `cmd` a config file may set: every option but `--config` itself. */
export function configurableOptions(cmd: Command): Option[] {
  return cmd.options.filter((o) => configKey(o) !== 'config');
}

/** The JSON value of one option in a config file, checked as the flag's parser checks it. */
function valueSchema(option: Option): z.ZodType {
  const parse = option.parseArg as ((value: string, previous: unknown) => unknown) & { configSchema?: z.ZodType } | undefined;
  if (parse?.configSchema) return parse.configSchema;
  if (!option.required && !option.optional) return z.boolean();
  const text = option.variadic ? z.array(z.string()).min(1) : z.string();
  if (!parse) return option.optional ? z.union([z.boolean(), text]) : text;
  // A parser without a config schema: the file's string goes through it as the flag's would.
  return z.string().transform((value, ctx) => {
    try {
      return parse(value, undefined);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^error: /, '') });
      return z.NEVER;
    }
  });
}

/**
 * The zod schema of `cmd`'s settings in a config file, derived from its
 * commander options: one optional key per option (defaults stay the
 * options'), unknown keys refused, comment keys ignored.
 */
export function configSchemaFor(cmd: Command): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  for (const option of configurableOptions(cmd)) shape[configKey(option)] = valueSchema(option).optional();
  return z.preprocess(withoutComments, z.strictObject(shape)) as unknown as z.ZodType<Record<string, unknown>>;
}

function withoutComments(value: unknown): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith(COMMENT_PREFIX)));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Read and parse the file, with line and column on a JSON syntax error. */
function readJson(command: string, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RunConfigError(command, file, code === 'ENOENT' ? 'cannot read: no such file' : `cannot read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message);
    const where = at ? lineColumn(text, Number(at[1])) : undefined;
    const detail = message.replace(/\s*in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    throw new RunConfigError(command, where ? `${file}:${where.line}:${where.column}` : file, `invalid JSON: ${detail}`);
  }
}

export function lineColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/**
 * The settings for `cmd` in the file: the whole file, or its `evolve`,
 * `serve` or `suite` section when it has one section per command.
 */
export function readRunConfig(cmd: Command, file: string): Record<string, unknown> {
  const command = cmd.name();
  const raw = readJson(command, file);
  if (!isObject(raw)) throw new RunConfigError(command, file, 'expected a JSON object of settings (keys are the flags in camelCase)');
  const sectioned = Object.keys(raw).some((k) => (RUN_CONFIG_COMMANDS as readonly string[]).includes(k));
  let settings: unknown = raw;
  let prefix = '';
  if (sectioned) {
    const unknown = Object.keys(raw).find((k) => !k.startsWith(COMMENT_PREFIX) && !(RUN_CONFIG_COMMANDS as readonly string[]).includes(k));
    if (unknown !== undefined) throw new RunConfigError(command, file, `unknown key "${unknown}" (a file with sections has only ${RUN_CONFIG_COMMANDS.join(', ')} and ${COMMENT_PREFIX} comments at the top)`, unknown);
    settings = raw[command] ?? {};
    prefix = `${command}.`;
    if (!isObject(settings)) throw new RunConfigError(command, file, `key "${command}": expected an object of settings`, command);
  }
  const result = configSchemaFor(cmd).safeParse(settings);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const near = nearest(key, configurableOptions(cmd).map(configKey));
    throw new RunConfigError(command, file, `unknown key "${prefix}${key}"${near ? ` (did you mean "${near}"?)` : ''}`, prefix + key);
  }
  const key = issue.path[0] === undefined ? undefined : String(issue.path[0]);
  const option = configurableOptions(cmd).find((o) => configKey(o) === key);
  const rest = issue.path.slice(1).map(String);
  const name = `${prefix}${[key, ...rest].join('.')}`;
  throw new RunConfigError(command, file, `key "${name}"${option ? ` (${option.long})` : ''}: ${issue.message}`, name);
}

/** The closest known key within two edits, for a typo. */
function nearest(key: string, known: string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = editDistance(key.toLowerCase(), name.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * Add `--config FILE.json` to `cmd`: before its action runs, the file's
 * settings become the option values (source 'config'), except for options
 * given on the command line, which win. A bad file stops the command with a
 * RunConfigError before anything is written.
 */
export function withRunConfig(cmd: Command): Command {
  cmd.option('--config <file.json>', 'read settings from this JSON file (keys are the flags in camelCase; flags given on the command line override it; `autopoiesis init` writes an example)');
  cmd.hook('preAction', (_hooked, action) => {
    if (action !== cmd) return;
    const file = cmd.getOptionValue('config') as string | undefined;
    if (file === undefined) return;
    for (const [key, value] of Object.entries(readRunConfig(cmd, file))) {
      if (value !== undefined && cmd.getOptionValueSource(key) !== 'cli') cmd.setOptionValueWithSource(key, value, 'config');
    }
  });
  return cmd;
}
