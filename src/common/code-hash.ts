import { createHash } from 'node:crypto';

/**
 * The identity of a policy's source for de-duplication: sha256 (hex) of the
 * code with whitespace normalised, so that a mutation that only re-indents,
 * re-wraps or changes line endings is recognised as the code it came from and
 * is not evaluated again.
 *
 * Normalisation: CRLF/CR become LF, every line is trimmed, runs of spaces and
 * tabs inside a line collapse to one space, blank lines are dropped.
 *
 * Comments are NOT stripped, on purpose. Doing it correctly needs a JS
 * tokenizer (a `//` inside a string or a regex literal is not a comment), and
 * the cost of keeping them is only that two candidates differing in comments
 * alone get two hashes and are both evaluated: a wasted evaluation, never a
 * wrong de-duplication. The one lossy step is the whitespace collapse inside
 * string literals (`'a  b'` and `'a b'` hash alike); policies do not depend
 * on whitespace inside strings, so we accept it.
 */
export function codeHash(code: string): string {
  return createHash('sha256').update(normaliseWhitespace(code)).digest('hex');
}

/** The text that codeHash hashes; exported for tests and for explaining a hash. */
export function normaliseWhitespace(code: string): string {
  return code
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/[ \t\f\v\u00a0\ufeff]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}
