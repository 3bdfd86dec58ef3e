/**
 * Errors whose class decides what happens next. The CLI maps them to exit
 * codes: input and usage errors exit 2 with one line naming the file, line or
 * field; anything else is a bug or an infrastructure failure and exits 1.
 */
export abstract class AutopoiesisError extends Error {
  abstract readonly exitCode: number;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad user input: a file, a trace line, a profile value, a flag. Not retried. */
export class InputError extends AutopoiesisError {
  readonly exitCode = 2;
  constructor(
    message: string,
    readonly where?: { file?: string; line?: number; field?: string },
  ) {
    super(formatWhere(where) + message);
  }
}

/** A command line that does not make sense. */
export class UsageError extends AutopoiesisError {
  readonly exitCode = 2;
}

/** Something outside the input failed (disk, worker, endpoint): may be retried. */
export class InfrastructureError extends AutopoiesisError {
  readonly exitCode = 1;
}

/** An invariant of the simulator broke: a bug, never the user's fault. */
export class SimulationInvariantError extends AutopoiesisError {
  readonly exitCode = 1;
}

function formatWhere(where?: { file?: string; line?: number; field?: string }): string {
  if (!where) return '';
  const parts: string[] = [];
  if (where.file) parts.push(where.line !== undefined ? `${where.file}:${where.line}` : where.file);
  else if (where.line !== undefined) parts.push(`line ${where.line}`);
  if (where.field) parts.push(`field ${where.field}`);
  return parts.length ? parts.join(': ') + ': ' : '';
}
