import { parse, type AnyNode, type BlockStatement, type Expression, type Program, type Statement } from 'acorn';
import { full } from 'acorn-walk';

/**
 * Operation counting for the `counted` scheduling cost: the policy's source
 * (and the stdlib's, and code the policy compiles at run time) is rewritten
 * so that every function body entry and every loop body iteration reads
 * `(0).NAME`, a getter the sandbox defines on Number.prototype that adds one
 * to a counter held in shared memory (op-counter.ts).
 *
 * Why a getter on a primitive's prototype rather than a variable: a property
 * read on the literal `0` resolves through the intrinsic Number.prototype,
 * never through scope, so neither `with (proxy)`, nor a `var NAME` injected by
 * eval, nor a shadowing declaration can intercept it; the property is
 * non-configurable, so the policy cannot redefine or delete it; and knowing
 * NAME only lets a policy count more, never less. NAME is chosen so that it
 * occurs nowhere in the sources instrumented with it (opNameFor), so no
 * identifier, string or comment of the policy can collide with it; it is a
 * function of the sources only, so runs stay deterministic.
 *
 * Text is spliced in at node offsets (the AST is not regenerated): comments,
 * line numbers and everything else the policy computes stay as they were. Only
 * columns after an insertion on the same line shift, in stack traces, and
 * Function.prototype.toString shows the instrumented text.
 */

/** The source cannot be parsed, so it cannot be instrumented. */
export class InstrumentError extends Error {}

const BASE_NAME = '__autopoiesisOps';

/** The first of __autopoiesisOps, __autopoiesisOps1, ... that occurs in none of the sources. */
export function opNameFor(sources: readonly string[]): string {
  for (let i = 0; ; i++) {
    const name = i === 0 ? BASE_NAME : `${BASE_NAME}${i}`;
    if (sources.every((s) => !s.includes(name))) return name;
  }
}

/** Instrument a script (a policy, the stdlib install, or eval code). Throws InstrumentError when it does not parse. */
export function instrumentScript(source: string, opName: string): string {
  return splice(source, insertionsFor(parseScript(source), opName));
}

/** What the Function-like constructors build; the prefix of their source text. */
export const FUNCTION_PREFIXES = ['function', 'function*', 'async function', 'async function*'] as const;

/**
 * Instrument the text a Function-like constructor compiles,
 * `(PREFIX anonymous(PARAMS\n) {\nBODY\n})`. The whole text must be that one
 * function expression: parameters or a body that close it early and smuggle
 * in code beside it are rejected, as the native constructor rejects them.
 */
export function instrumentFunctionText(text: string, opName: string): string {
  const program = parseScript(text);
  const only = program.body.length === 1 ? program.body[0] : undefined;
  const fn = only?.type === 'ExpressionStatement' ? only.expression : undefined;
  if (!fn || fn.type !== 'FunctionExpression' || fn.start !== 1 || fn.end !== text.length - 1 || text[0] !== '(' || text[text.length - 1] !== ')') {
    throw new InstrumentError('the parameters or body do not make one function');
  }
  return splice(text, insertionsFor(program, opName));
}

function parseScript(source: string): Program {
  try {
    return parse(source, { ecmaVersion: 'latest', sourceType: 'script' });
  } catch (error) {
    throw new InstrumentError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * One piece of text to insert. Openers and closers at the same offset are
 * ordered so that wrappings nest: closers before openers, an inner closer
 * (later start) before an outer one, an outer opener (later end) before an
 * inner one.
 */
interface Insertion {
  at: number;
  text: string;
  closer: boolean;
  /** Start of the construct, for closers; end (Infinity for a lone tick), for openers. */
  span: number;
}

type FunctionNode = Extract<AnyNode, { type: 'FunctionDeclaration' | 'FunctionExpression' | 'ArrowFunctionExpression' }>;
type LoopNode = Extract<AnyNode, { type: 'ForStatement' | 'ForInStatement' | 'ForOfStatement' | 'WhileStatement' | 'DoWhileStatement' }>;

function insertionsFor(program: Program, opName: string): Insertion[] {
  const tick = `(0).${opName}`;
  const out: Insertion[] = [];
  const tickAt = (at: number, text = `${tick};`) => out.push({ at, text, closer: false, span: Infinity });
  const wrap = (node: { start: number; end: number }, open: string, close: string) => {
    out.push({ at: node.start, text: open, closer: false, span: node.end });
    out.push({ at: node.end, text: close, closer: true, span: node.start });
  };
  full(program, (node) => {
    switch (node.type) {
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression': {
        const body = (node as FunctionNode).body;
        if (body.type === 'BlockStatement') {
          const last = lastDirective(body);
          // After the directive prologue: a statement before 'use strict' would end the prologue.
          if (last) tickAt(last.end, `;${tick};`);
          else tickAt(body.start + 1);
        } else {
          wrap(body as Expression, `(${tick}, `, ')');
        }
        break;
      }
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement':
      case 'WhileStatement':
      case 'DoWhileStatement': {
        const body = (node as LoopNode).body;
        if (body.type === 'BlockStatement') tickAt(body.start + 1);
        else wrap(body, `{${tick}; `, '}');
        break;
      }
      default:
        break;
    }
  });
  return out;
}

function lastDirective(body: BlockStatement): Statement | undefined {
  let last: Statement | undefined;
  for (const s of body.body) {
    if (s.type === 'ExpressionStatement' && typeof (s as { directive?: unknown }).directive === 'string') last = s;
    else break;
  }
  return last;
}

function splice(source: string, insertions: Insertion[]): string {
  insertions.sort((a, b) => {
    if (a.at !== b.at) return a.at - b.at;
    if (a.closer !== b.closer) return a.closer ? -1 : 1;
    return a.span === b.span ? 0 : b.span > a.span ? 1 : -1;
  });
  let out = '';
  let from = 0;
  for (const ins of insertions) {
    out += source.slice(from, ins.at) + ins.text;
    from = ins.at;
  }
  return out + source.slice(from);
}
