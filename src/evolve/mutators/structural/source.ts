import type { AnyNode } from 'acorn';
import { CONTRACT_FUNCTIONS } from '../policy-shape.js';

/**
 * Edits splice the original source text instead of regenerating the whole
 * program from the AST: every comment, blank line and formatting choice of
 * the parent survives (astring would drop all comments but the ones we put
 * back), and the parent/child diff shows exactly the edit.
 */
export function splice(code: string, start: number, end: number, text: string): string {
  return code.slice(0, start) + text + code.slice(end);
}

export function lineOf(node: AnyNode): number {
  return node.loc?.start.line ?? 0;
}

/**
 * Where a node sits, for the edit description: 'in schedule', 'in helper
 * pick' or 'at top level'. `ancestors` is acorn-walk's list, Program first.
 */
export function whereOf(ancestors: readonly AnyNode[]): string {
  const top = ancestors[1];
  if (top?.type === 'FunctionDeclaration' && top.id) {
    const name = top.id.name;
    return (CONTRACT_FUNCTIONS as readonly string[]).includes(name) ? `in ${name}` : `in helper ${name}`;
  }
  return 'at top level';
}

/**
 * A node's source on one line, shortened and in backticks, so that a
 * description stays one line and its own semicolons do not read as the
 * separator between edits.
 */
export function snippet(code: string, node: { start: number; end: number }, max = 48): string {
  const text = code.slice(node.start, node.end).replace(/\s+/g, ' ').trim().replace(/;$/, '');
  return '`' + (text.length <= max ? text : text.slice(0, max - 1) + '…') + '`';
}

/** The range covering whole lines when a node is alone on its line(s), so removing it leaves no blank line. */
export function ownLines(code: string, node: { start: number; end: number }): { start: number; end: number; indent: string } | null {
  const lineStart = code.lastIndexOf('\n', node.start - 1) + 1;
  const before = code.slice(lineStart, node.start);
  let lineEnd = code.indexOf('\n', node.end);
  if (lineEnd === -1) lineEnd = code.length;
  const after = code.slice(node.end, lineEnd);
  if (/\S/.test(before) || /\S/.test(after)) return null;
  return { start: lineStart, end: Math.min(code.length, lineEnd + 1), indent: before };
}
