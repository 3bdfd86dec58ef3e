import { describe, expect, it } from 'vitest';
import { codeHash, normaliseWhitespace } from '../../src/store/index.js';

const policy = `function shouldReschedule(ctx) {
  return ctx.queue > 4;
}
function schedule(ctx) { return ctx.plan; }
`;

describe('codeHash', () => {
  it('is a sha256 hex digest', () => {
    expect(codeHash(policy)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores indentation, trailing spaces, line endings, blank lines and runs of spaces', () => {
    const reformatted = '\r\n\r\nfunction  shouldReschedule(ctx)  {\r\n\t\treturn   ctx.queue > 4;   \r\n}\r\n\r\n\r\nfunction schedule(ctx) {\treturn ctx.plan; }';
    expect(codeHash(reformatted)).toBe(codeHash(policy));
  });

  it('does not ignore what changes tokens: a space removed between tokens, a different literal, a comment', () => {
    expect(codeHash(policy.replace('> 4', '> 5'))).not.toBe(codeHash(policy));
    expect(codeHash(policy.replace('return ctx.plan', 'returnctx.plan'))).not.toBe(codeHash(policy));
    // Comments are kept on purpose (see src/common/code-hash.ts): a comment-only change is a new hash.
    expect(codeHash(policy + '// tuned\n')).not.toBe(codeHash(policy));
  });

  it('normalises to trimmed, single-spaced, non-blank lines', () => {
    expect(normaliseWhitespace('  a   b \n\n\t c\r\n')).toBe('a b\nc');
  });
});
