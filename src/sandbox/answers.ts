import ivm from 'isolated-vm';
import { PolicyFailure, type FailureKind, type FailurePhase } from './failure.js';

/** Reading what comes out of an isolate: the dispatcher's failure answers and error texts, cut to a readable length. */

/** Kinds the dispatcher itself reports; the others are decided here, from the isolate's state. */
const ISOLATE_KINDS: ReadonlySet<string> = new Set<FailureKind>(['throw', 'invalid-plan', 'too-large', 'missing-function']);
const MESSAGE_CHARS = 2000;

export function failureFromIsolate(raw: unknown, phase: FailurePhase): PolicyFailure {
  if (
    Array.isArray(raw) &&
    raw.length === 2 &&
    typeof raw[0] === 'string' &&
    typeof raw[1] === 'string' &&
    ISOLATE_KINDS.has(raw[0])
  ) {
    return new PolicyFailure(raw[0] as FailureKind, phase, truncate(raw[1]));
  }
  // Only the prelude writes answers, so this is a bug of ours, not the policy's.
  throw new Error(`sandbox dispatcher answered ${typeof raw} to ${phase}`);
}

export function isCopyable(value: unknown): boolean {
  try {
    new ivm.ExternalCopy(value).release();
    return true;
  } catch {
    return false;
  }
}

export function errorText(error: unknown): string {
  try {
    return truncate(error instanceof Error ? error.message : String(error));
  } catch {
    return 'an error that cannot be described';
  }
}

export function truncate(text: string): string {
  return text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)} [...]` : text;
}
