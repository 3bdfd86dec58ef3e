import ivm from 'isolated-vm';
import { InstrumentError, instrumentFunctionText, instrumentScript, opNameFor } from './instrument.js';
import { STDLIB_INSTALL_SOURCE } from './prelude.js';
import { PolicyFailure, type FailurePhase } from './failure.js';

/** Contains the prelude's file name, so that the prelude's describe() drops its frames from stack traces too. */
export const COUNTING_FILENAME = 'counting.sandbox-prelude.js';

/** Longest string eval or a Function constructor may compile at run time. */
const MAX_RUNTIME_CHARS = 1_000_000;
/** Runtime compilations remembered per sandbox (a policy that rebuilds the same function every call parses it once). */
const RUNTIME_CACHE = 256;

/**
 * Trusted, strict code run in the isolate after the prelude and before the
 * stdlib and the policy. It defines the counting getter (instrument.ts) over
 * a Float64Array on memory shared with the host, so the host reads the count
 * at any time, even after a call threw, was terminated, or took the isolate
 * down with it. Slot 0 is the count; slot 1 is the count at which the call
 * in progress runs out of its op budget: past it every counted op throws, so
 * a runaway call ends after the same op on every machine, under any load
 * (a policy that catches the error cannot go on: its next op throws again).
 *
 * Code compiled at run time would escape the count, so eval and the four
 * Function-like constructors (global Function, and the `constructor` of
 * Function.prototype and of the generator, async and async generator
 * function prototypes) are replaced by versions that have the host
 * instrument the text first, then evaluate it with the real, indirect eval.
 * The originals stay in this closure only. Consequences: a policy's eval is
 * always an indirect eval (global scope: it cannot see the caller's local
 * variables); each compiled character counts one op (the host parses it).
 */
const COUNTING_SOURCE = String.raw`(function (buffer, name, instrument, maxChars) {
  'use strict';
  const g = globalThis;
  const counts = new Float64Array(buffer);
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf;
  const setPrototypeOf = Object.setPrototypeOf;
  const reflectApply = Reflect.apply;
  const realEval = g.eval;
  const toStr = String;
  const SyntaxErrorCtor = SyntaxError;
  const RangeErrorCtor = RangeError;
  const applySync = instrument.applySync;
  // Null prototypes: a policy that pollutes Object.prototype cannot change how the host is called.
  const options = { __proto__: null, arguments: { __proto__: null, copy: true }, result: { __proto__: null, copy: true } };

  defineProperty(Number.prototype, name, {
    get: function () {
      if (++counts[0] > counts[1]) throw new RangeErrorCtor('the call ran out of its operation budget');
      return undefined;
    },
    enumerable: false,
    configurable: false,
  });

  function compile(kind, text) {
    counts[0] += text.length;
    if (text.length > maxChars) throw new RangeErrorCtor('code compiled at run time is limited to ' + maxChars + ' characters');
    const r = reflectApply(applySync, instrument, [undefined, [kind, text], options]);
    if (typeof r !== 'string') throw new SyntaxErrorCtor(toStr(r[0]));
    return realEval(r);
  }

  function evalCounted(x) {
    if (typeof x !== 'string') return x;
    return compile(0, x);
  }
  defineProperty(evalCounted, 'name', { value: 'eval' });
  defineProperty(g, 'eval', { value: evalCounted, writable: true, enumerable: false, configurable: true });

  function replaceConstructor(Real, prefix, ctorName) {
    const counted = function () {
      const n = arguments.length;
      let params = '';
      for (let i = 0; i < n - 1; i++) params += (i > 0 ? ',' : '') + toStr(arguments[i]);
      const body = n > 0 ? toStr(arguments[n - 1]) : '';
      const fn = compile(1, '(' + prefix + ' anonymous(' + params + '\n) {\n' + body + '\n})');
      if (new.target !== undefined && new.target !== counted) setPrototypeOf(fn, new.target.prototype);
      return fn;
    };
    defineProperty(counted, 'name', { value: ctorName });
    defineProperty(counted, 'length', { value: 1 });
    defineProperty(counted, 'prototype', { value: Real.prototype, writable: false, enumerable: false, configurable: false });
    const d = getOwnPropertyDescriptor(Real.prototype, 'constructor');
    defineProperty(Real.prototype, 'constructor', { value: counted, writable: d.writable, enumerable: false, configurable: d.configurable });
    return counted;
  }
  const FunctionCounted = replaceConstructor(g.Function, 'function', 'Function');
  defineProperty(g, 'Function', { value: FunctionCounted, writable: true, enumerable: false, configurable: true });
  replaceConstructor(getPrototypeOf(function* () {}).constructor, 'function*', 'GeneratorFunction');
  replaceConstructor(getPrototypeOf(async function () {}).constructor, 'async function', 'AsyncFunction');
  replaceConstructor(getPrototypeOf(async function* () {}).constructor, 'async function*', 'AsyncGeneratorFunction');
})`;

/** The stdlib install text instrumented with a given op name (almost always the same one). */
const stdlibByName = new Map<string, string>();

/**
 * The host side of one sandbox's op count: the op name, the shared counter,
 * and the instrumentation of the policy, the stdlib and runtime-compiled
 * code. Disabled (`enabled` false), nothing is instrumented or installed
 * and the count stays 0: the sandbox runs the policy as written.
 */
export class OpCounter {
  readonly name: string;
  private readonly counts = new Float64Array(new SharedArrayBuffer(2 * Float64Array.BYTES_PER_ELEMENT));
  private readonly runtime = new Map<string, string>();

  constructor(
    policySource: string,
    readonly enabled: boolean,
  ) {
    this.name = opNameFor([policySource, STDLIB_INSTALL_SOURCE]);
    this.counts[1] = Infinity; // the trusted set-up runs unbudgeted
  }

  /** Start a budgeted step (loading, or one call): it may count at most `limit` more ops. */
  arm(limit: number): void {
    this.counts[1] = this.counts[0]! + limit;
  }

  /** The last armed step ran out of its budget: a `timeout` failure, the same on any machine. */
  overrun(phase: FailurePhase, limit: number): PolicyFailure | null {
    if (!this.enabled || !(this.counts[0]! > this.counts[1]!)) return null;
    return new PolicyFailure('timeout', phase, `${phase} ran past its budget of ${limit} counted operations (function entries and loop iterations)`);
  }

  /** Ops counted so far in this sandbox (load included). */
  get total(): number {
    return this.counts[0]!;
  }

  /** The policy as it is compiled. Throws InstrumentError when acorn cannot parse it. */
  policySource(source: string): string {
    return this.enabled ? instrumentScript(source, this.name) : source;
  }

  stdlibSource(): string {
    if (!this.enabled) return STDLIB_INSTALL_SOURCE;
    let text = stdlibByName.get(this.name);
    if (text === undefined) {
      text = instrumentScript(STDLIB_INSTALL_SOURCE, this.name);
      stdlibByName.set(this.name, text);
    }
    return text;
  }

  /** Define the counter and the counting eval/Function in a fresh context (before the stdlib and the policy). */
  install(isolate: ivm.Isolate, context: ivm.Context, timeoutMs: number): void {
    if (!this.enabled) return;
    const script = isolate.compileScriptSync(COUNTING_SOURCE, { filename: COUNTING_FILENAME });
    let setup: ivm.Reference<unknown> | undefined;
    // The isolate keeps its own copy of this reference; the host's is released at once (see the finally).
    const callback = new ivm.Reference((kind: number, text: string) => this.compileAtRunTime(kind, text));
    try {
      setup = script.runSync(context, { reference: true, timeout: timeoutMs }) as ivm.Reference<unknown>;
      setup.applySync(undefined, [new ivm.ExternalCopy(this.counts.buffer).copyInto({ release: true }), this.name, callback, MAX_RUNTIME_CHARS], {
        timeout: timeoutMs,
      });
    } finally {
      for (const handle of [setup, callback, script]) {
        try {
          handle?.release();
        } catch {
          // already released with its isolate
        }
      }
    }
  }

  /** Called from inside the isolate: the instrumented text, or [message] for a SyntaxError. */
  private compileAtRunTime(kind: number, text: string): string | [string] {
    const key = `${kind}:${text}`;
    const known = this.runtime.get(key);
    if (known !== undefined) return known;
    let out: string;
    try {
      out = kind === 0 ? instrumentScript(text, this.name) : instrumentFunctionText(text, this.name);
    } catch (error) {
      if (error instanceof InstrumentError) return [error.message];
      throw error;
    }
    if (this.runtime.size >= RUNTIME_CACHE) this.runtime.clear();
    this.runtime.set(key, out);
    return out;
  }
}
