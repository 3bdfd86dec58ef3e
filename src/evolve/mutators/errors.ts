import { AutopoiesisError } from '../../common/errors.js';

/**
 * Why a mutation produced no candidate. Callers record the kind with the
 * failed candidate and branch on it (e.g. back off on 'rate-limit'), so it is
 * a field, never something to read out of the message.
 */
export type MutationFailureReason =
  | 'no-edit' // nothing to change, or the result equals the parent
  | 'parse' // the result (or the parent) does not parse or lacks a contract function
  | 'search-mismatch' // a SEARCH block matched nothing, also after the follow-up
  | 'endpoint' // the endpoint cannot be reached or refused the request (4xx other than 429)
  | 'rate-limit' // 429 after the retries
  | 'server-error' // 5xx after the retries
  | 'timeout' // no answer within the request timeout, after the retries
  | 'empty-answer' // the model answered nothing
  | 'garbage' // an answer that is neither SEARCH/REPLACE blocks nor a fenced file
  | 'aborted'; // the caller's AbortSignal fired (e.g. the cycle ran out of time)

/** What the failed attempt cost, so that the lineage can record it too. */
export interface MutationCost {
  model: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

/**
 * A mutation that failed. Evolution goes on: the caller records the reason and
 * moves to the next candidate, so this is never fatal (exit code 1 only if it
 * escapes to the CLI, which would be a bug).
 */
export class MutationFailed extends AutopoiesisError {
  readonly exitCode = 1;
  /** The mutator that failed ('llm', 'structural'); null when not known. */
  readonly mutator: string | null;
  readonly cost: MutationCost;

  constructor(
    readonly reason: MutationFailureReason,
    /** The message without the 'mutator failed (reason)' prefix. */
    readonly detail: string,
    options: { mutator?: string; cost?: Partial<MutationCost>; cause?: unknown } = {},
  ) {
    super(`${options.mutator ?? 'mutation'} failed (${reason}): ${detail}`, { cause: options.cause });
    this.mutator = options.mutator ?? null;
    this.cost = {
      model: options.cost?.model ?? null,
      promptTokens: options.cost?.promptTokens ?? null,
      completionTokens: options.cost?.completionTokens ?? null,
    };
  }
}
