import { describe, expect, it } from 'vitest';
import { applySearchReplace, extractWholeFile } from '../../../src/evolve/mutators/index.js';
import { extractSummary, readAnswer } from '../../../src/evolve/mutators/llm/answer.js';

// The answers in this file are hand-written.

const CODE = `function shouldReschedule(ctx) {
  return ctx.now > 10;
}

function schedule(ctx) {
  return ctx.plan;
}
`;

function block(search: string, replace: string): string {
  return `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n`;
}

describe('applySearchReplace', () => {
  it('applies blocks in order, each to what the previous left', () => {
    const answer = 'SUMMARY: x\n```\n' + block('  return ctx.now > 10;', '  return ctx.now > 20;') + '```\n' + block('ctx.now > 20', 'ctx.now >= 20');
    expect(applySearchReplace(CODE, answer)).toEqual({ code: CODE.replace('ctx.now > 10', 'ctx.now >= 20') });
  });

  it('deletes with an empty REPLACE and takes CRLF answers', () => {
    const answer = block('function schedule(ctx) {\n  return ctx.plan;\n}\n', '').replace(/\n/g, '\r\n');
    expect(applySearchReplace(CODE + '\n', answer)).toEqual({ code: CODE.replace('function schedule(ctx) {\n  return ctx.plan;\n}\n', '') + '\n' });
  });

  it('names the failing block and the reason, hinting at whitespace', () => {
    const answer = block('return ctx.now > 10;', 'return true;') + block('return ctx.plan ;', 'return null;');
    expect(applySearchReplace(CODE, answer)).toEqual({ error: { block: 2, reason: 'the SEARCH text does not occur in the code', search: 'return ctx.plan ;' } });
    const indented = applySearchReplace(CODE, block('return ctx.now > 10;\n}\n\n\nfunction schedule(ctx) {', 'x'));
    expect(indented).toMatchObject({ error: { block: 1, reason: expect.stringContaining('indentation') } });
  });

  it('rejects an answer without blocks, an unclosed block and an empty SEARCH', () => {
    expect(applySearchReplace(CODE, 'no edits here')).toEqual({ error: { block: 0, reason: 'the answer has no SEARCH/REPLACE block' } });
    expect(applySearchReplace(CODE, '<<<<<<< SEARCH\nreturn ctx.plan;\n=======\nreturn null;\n')).toMatchObject({ error: { block: 1, reason: expect.stringContaining('>>>>>>> REPLACE') } });
    expect(applySearchReplace(CODE, block('', 'x'))).toMatchObject({ error: { block: 1, reason: 'the SEARCH part is empty' } });
  });
});

describe('extractWholeFile', () => {
  it('takes the one fenced js block', () => {
    expect(extractWholeFile('Here:\n```javascript\nconst a = 1;\n```\nDone.')).toBe('const a = 1;\n');
    expect(extractWholeFile('```\nconst a = 1;\n```')).toBe('const a = 1;\n');
  });

  it('takes the longest of several, ignores other languages, and gives null without a fence', () => {
    expect(extractWholeFile('```js\nschedule(ctx)\n```\n\n```js\nfunction schedule(ctx) { return 1; }\n```')).toBe('function schedule(ctx) { return 1; }\n');
    expect(extractWholeFile('```json\n{"a": 1}\n```')).toBeNull();
    expect(extractWholeFile('function schedule(ctx) {}')).toBeNull();
  });
});

describe('reading an answer', () => {
  it('prefers SEARCH/REPLACE blocks, then a fenced file, else garbage', () => {
    expect(readAnswer(CODE, block('ctx.now > 10', 'ctx.now > 5'))).toEqual({ kind: 'code', code: CODE.replace('> 10', '> 5'), how: '1 SEARCH/REPLACE block' });
    expect(readAnswer(CODE, '```js\nfunction a() {}\n```')).toEqual({ kind: 'code', code: 'function a() {}\n', how: 'whole file' });
    expect(readAnswer(CODE, block('nope', 'x'))).toMatchObject({ kind: 'mismatch', error: { block: 1 } });
    expect(readAnswer(CODE, 'just words')).toEqual({ kind: 'garbage' });
  });

  it('finds the SUMMARY line', () => {
    expect(extractSummary('SUMMARY: hold longer\n...')).toBe('hold longer');
    expect(extractSummary('**Summary:** replan on membership only')).toBe('replan on membership only');
    expect(extractSummary('no summary')).toBeNull();
  });
});
