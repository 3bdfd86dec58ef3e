/**
 * Reading a model's answer: SEARCH/REPLACE blocks, or one fenced file, and
 * the one-line strategy summary the prompt asks for. Pure text functions, no
 * parsing of JavaScript here (the caller checks the result parses).
 */

export interface SearchReplaceBlock {
  search: string;
  replace: string;
}

export interface AnswerError {
  /** 1-based number of the failing block; 0 when the answer has no block at all. */
  block: number;
  reason: string;
  /** The failing block's SEARCH text, to show the model in the follow-up. */
  search?: string;
}

const SEARCH_MARK = /^\s*<{5,9}\s*SEARCH\s*$/;
const DIVIDER = /^\s*={5,9}\s*$/;
const REPLACE_MARK = /^\s*>{5,9}\s*REPLACE\s*$/;

/** The blocks in answer order; an unclosed block is an error of that block. */
export function parseSearchReplaceBlocks(answer: string): { blocks: SearchReplaceBlock[] } | { error: AnswerError } {
  const lines = answer.replace(/\r\n?/g, '\n').split('\n');
  const blocks: SearchReplaceBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!SEARCH_MARK.test(lines[i]!)) {
      i++;
      continue;
    }
    const number = blocks.length + 1;
    const search: string[] = [];
    const replace: string[] = [];
    for (i++; i < lines.length && !DIVIDER.test(lines[i]!); i++) {
      if (SEARCH_MARK.test(lines[i]!) || REPLACE_MARK.test(lines[i]!)) break;
      search.push(lines[i]!);
    }
    if (i >= lines.length || !DIVIDER.test(lines[i]!)) return { error: { block: number, reason: 'the block has no ======= line after its SEARCH part', search: search.join('\n') } };
    for (i++; i < lines.length && !REPLACE_MARK.test(lines[i]!); i++) {
      if (SEARCH_MARK.test(lines[i]!)) break;
      replace.push(lines[i]!);
    }
    if (i >= lines.length || !REPLACE_MARK.test(lines[i]!)) return { error: { block: number, reason: 'the block is not closed by a >>>>>>> REPLACE line', search: search.join('\n') } };
    i++;
    blocks.push({ search: search.join('\n'), replace: replace.join('\n') });
  }
  return { blocks };
}

export function hasSearchReplaceBlocks(answer: string): boolean {
  return answer.split(/\r?\n/).some((line) => SEARCH_MARK.test(line));
}

/**
 * Apply the answer's blocks in order, each to the code the previous ones
 * left. A SEARCH must match exactly (whitespace included); when it occurs
 * more than once the first occurrence is replaced, as the model reads the
 * file top-down. All or nothing: the first failing block fails the answer.
 */
export function applySearchReplace(code: string, answer: string): { code: string } | { error: AnswerError } {
  const parsed = parseSearchReplaceBlocks(answer);
  if ('error' in parsed) return parsed;
  if (parsed.blocks.length === 0) return { error: { block: 0, reason: 'the answer has no SEARCH/REPLACE block' } };
  let current = code;
  for (const [index, block] of parsed.blocks.entries()) {
    const number = index + 1;
    if (block.search.trim() === '') return { error: { block: number, reason: 'the SEARCH part is empty', search: block.search } };
    const at = current.indexOf(block.search);
    if (at === -1) return { error: { block: number, reason: mismatchReason(current, block.search), search: block.search } };
    current = current.slice(0, at) + block.replace + current.slice(at + block.search.length);
  }
  return { code: current };
}

/** Why a SEARCH failed, with the one hint that fixes most of them: whitespace. */
function mismatchReason(code: string, search: string): string {
  const squeeze = (text: string) => text.split('\n').map((l) => l.trim()).filter((l) => l !== '').join('\n');
  if (squeeze(code).includes(squeeze(search))) {
    return 'the SEARCH text matches the code only when indentation and blank lines are ignored; copy them exactly';
  }
  return 'the SEARCH text does not occur in the code';
}

/**
 * A whole file in a fenced block (```js, ```javascript or a bare ```). With
 * several fenced blocks the longest wins: models add short usage snippets
 * beside the file. Null when there is none.
 */
export function extractWholeFile(answer: string): string | null {
  const fence = /^[ \t]*```[ \t]*([\w-]*)[ \t]*\n([\s\S]*?)\n[ \t]*```[ \t]*$/gm;
  let best: string | null = null;
  for (const match of answer.replace(/\r\n?/g, '\n').matchAll(fence)) {
    const language = (match[1] ?? '').toLowerCase();
    if (!['', 'js', 'javascript', 'mjs', 'cjs'].includes(language)) continue;
    const body = match[2] ?? '';
    if (body.trim() !== '' && (best === null || body.length > best.length)) best = body;
  }
  return best === null ? null : best.endsWith('\n') ? best : best + '\n';
}

/** The `SUMMARY: ...` line the prompt asks for, on one line and at most 160 characters. */
export function extractSummary(answer: string): string | null {
  const match = /^[ \t>*_#-]*SUMMARY\s*[:\-–]\s*(.+)$/im.exec(answer);
  if (!match) return null;
  const text = match[1]!.replace(/[*_`]+/g, '').replace(/\s+/g, ' ').trim();
  if (text === '') return null;
  return text.length <= 160 ? text : text.slice(0, 159) + '…';
}

/** What an answer amounts to, before the code is checked to be a policy. */
export type ReadAnswer =
  | { kind: 'code'; code: string; how: string }
  | { kind: 'mismatch'; error: AnswerError }
  | { kind: 'garbage' };

/** SEARCH/REPLACE blocks if there are any (applied to the parent), else one fenced file, else garbage. */
export function readAnswer(parentCode: string, answer: string): ReadAnswer {
  if (hasSearchReplaceBlocks(answer)) {
    const applied = applySearchReplace(parentCode, answer);
    if ('error' in applied) return { kind: 'mismatch', error: applied.error };
    const parsed = parseSearchReplaceBlocks(answer);
    const n = 'blocks' in parsed ? parsed.blocks.length : 0;
    return { kind: 'code', code: applied.code, how: `${n} SEARCH/REPLACE block${n === 1 ? '' : 's'}` };
  }
  const file = extractWholeFile(answer);
  return file === null ? { kind: 'garbage' } : { kind: 'code', code: file, how: 'whole file' };
}
