import { oneLine } from '../common/one-line.js';
import { AutopoiesisError, InfrastructureError, InputError, UsageError } from '../common/errors.js';
import type { FailureKind } from './types.js';

/** A cycle that cannot go on, with what kind of failure it is (see FailureKind). */
export class CycleFailure extends AutopoiesisError {
  readonly exitCode = 1;
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Sort any error out of a cycle by its class, never by its message:
 * InfrastructureError (database busy or full, an endpoint, a worker) is worth
 * retrying soon; bad input is not; anything else is a bug, logged, and the
 * loop goes on anyway.
 */
export function classifyFailure(error: unknown): { kind: FailureKind; retryable: boolean; message: string } {
  const message = oneLine(error instanceof Error ? error.message : String(error));
  if (error instanceof CycleFailure) return { kind: error.kind, retryable: error.retryable, message };
  if (error instanceof InfrastructureError) return { kind: 'infrastructure', retryable: true, message };
  if (error instanceof InputError || error instanceof UsageError) return { kind: 'candidates', retryable: false, message };
  return { kind: 'internal', retryable: false, message: `internal error: ${message}` };
}

