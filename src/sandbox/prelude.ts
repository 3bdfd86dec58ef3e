import { STDLIB_SOURCE } from '../policy/stdlib-source.js';

/**
 * Trusted code that runs inside each policy isolate before the policy.
 *
 * PRELUDE_SOURCE evaluates to `setup(s0, s1, s2, s3, maxPlanChars)`, which
 * makes the isolate deterministic and returns the dispatcher, the only
 * function the host ever calls. Neither setup nor the dispatcher is reachable
 * from the policy: the host holds them by reference, never as globals.
 *
 * What setup does to the isolate's globals:
 * - Date: a subclass-compatible replacement whose `Date.now()` and
 *   `new Date()` give simulated time (ctx.now, in ms), set before each call;
 *   dates built from arguments are ordinary dates.
 * - Math.random: sfc32 seeded with four words from the host's Rng, so a
 *   replay draws the same numbers.
 * - WeakRef and FinalizationRegistry (results would depend on GC timing),
 *   SharedArrayBuffer and Atomics (shared memory, blocking waits) and
 *   WebAssembly (a second compiler with memory outside the heap) are removed.
 *   eval and Function stay: code they make runs in the same isolate under the
 *   same limits, so they reach nothing new. The isolate never had require,
 *   process, timers or fetch, and the host puts nothing on its global.
 *
 * Dispatcher protocol, dispatch(op, ctx):
 *   op 0 (bind):  takes shouldReschedule and schedule as they are after the
 *                 policy loaded; true, or ['missing-function', message]
 *   op 1:         calls shouldReschedule(ctx): a boolean, or [kind, message]
 *   op 2:         calls schedule(ctx): the plan as JSON text, or [kind, message]
 * where kind is 'throw', 'invalid-plan' or 'too-large'. The plan is written
 * as JSON here, by a walker that reads own data properties only: it never
 * calls a getter, toJSON or a promise, and it stops as soon as the text
 * passes the size limit, so a hostile plan can neither run code on the host
 * nor make the host copy megabytes. The host still parses and validates the
 * text: nothing here is trusted for safety, only for better messages.
 *
 * The builtins the dispatcher uses are captured before the policy runs, so a
 * policy that replaces JSON.stringify or Array.prototype methods only breaks
 * itself.
 */
export const PRELUDE_FILENAME = 'sandbox-prelude.js';
export const STDLIB_FILENAME = 'stdlib.js';
export const POLICY_FILENAME = 'policy.js';

/** The dispatcher's operations (see the protocol above). */
export const DispatchOp = { Bind: 0, ShouldReschedule: 1, Schedule: 2 } as const;
export type DispatchOp = (typeof DispatchOp)[keyof typeof DispatchOp];

export const PRELUDE_SOURCE = String.raw`(function setup(s0, s1, s2, s3, maxPlanChars) {
  'use strict';
  const g = globalThis;
  const RealDate = g.Date;
  const reflectApply = Reflect.apply;
  const reflectConstruct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf;
  const objectKeys = Object.keys;
  const hasOwn = Object.hasOwn;
  const isArray = Array.isArray;
  const stringify = JSON.stringify;
  const toStr = String;
  const ErrorCtor = Error;
  const promisePrototype = Promise.prototype;
  const dateToString = RealDate.prototype.toString;
  const strSlice = String.prototype.slice;
  const strSplit = String.prototype.split;
  const strIncludes = String.prototype.includes;
  const MESSAGE_CHARS = 2000;

  delete g.WeakRef;
  delete g.FinalizationRegistry;
  delete g.SharedArrayBuffer;
  delete g.Atomics;
  delete g.WebAssembly;

  // Simulated clock, in ms, set from ctx.now before every call.
  let clockMs = 0;
  function SimDate() {
    const args = arguments;
    if (new.target === undefined) return reflectApply(dateToString, reflectConstruct(RealDate, [clockMs]), []);
    return reflectConstruct(RealDate, args.length === 0 ? [clockMs] : args, new.target);
  }
  defineProperty(SimDate, 'name', { value: 'Date' });
  defineProperty(SimDate, 'length', { value: 7 });
  defineProperty(SimDate, 'prototype', { value: RealDate.prototype, writable: false });
  defineProperty(RealDate.prototype, 'constructor', { value: SimDate, writable: true, enumerable: false, configurable: true });
  defineProperty(SimDate, 'now', { value: function now() { return clockMs; }, writable: true, enumerable: false, configurable: true });
  defineProperty(SimDate, 'parse', { value: RealDate.parse, writable: true, enumerable: false, configurable: true });
  defineProperty(SimDate, 'UTC', { value: RealDate.UTC, writable: true, enumerable: false, configurable: true });
  defineProperty(g, 'Date', { value: SimDate, writable: true, enumerable: false, configurable: true });

  // Seeded Math.random: sfc32, the generator of the host's Rng.
  let a = s0 >>> 0;
  let b = s1 >>> 0;
  let c = s2 >>> 0;
  let d = s3 >>> 0;
  function random() {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  }
  defineProperty(Math, 'random', { value: random, writable: true, enumerable: false, configurable: true });

  function cut(text) {
    return text.length > MESSAGE_CHARS ? reflectApply(strSlice, text, [0, MESSAGE_CHARS]) + ' [...]' : text;
  }

  // Stack lines of the prelude say nothing to the policy's author.
  function withoutPreludeFrames(stack) {
    const lines = reflectApply(strSplit, stack, ['\n']);
    let out = '';
    for (let i = 0; i < lines.length; i++) {
      if (reflectApply(strIncludes, lines[i], ['${PRELUDE_FILENAME}'])) continue;
      out += (out === '' ? '' : '\n') + lines[i];
    }
    return out;
  }

  // Text for a thrown value. Reading it may run policy code (getters,
  // toString, prepareStackTrace); whatever that does, this returns a string.
  function describe(e) {
    try {
      if (e instanceof ErrorCtor) {
        const stack = e.stack;
        if (typeof stack === 'string') return cut(withoutPreludeFrames(stack));
        return cut(toStr(e.name) + ': ' + toStr(e.message));
      }
      if (typeof e === 'string') return cut('threw the string ' + stringify(e));
      return cut('threw ' + toStr(e));
    } catch (_) {
      return 'threw a value whose description itself throws';
    }
  }

  function isPromise(v) {
    try {
      return v !== null && typeof v === 'object' && getPrototypeOf(v) === promisePrototype;
    } catch (_) {
      return false;
    }
  }

  function kindOf(v) {
    if (v === null) return 'null';
    if (isArray(v)) return 'an array';
    if (isPromise(v)) return 'a promise (policies are synchronous: return the value itself)';
    return typeof v === 'object' ? 'an object' : typeof v === 'undefined' ? 'undefined' : 'a ' + typeof v;
  }

  // The plan walker. reject() records why and throws a sentinel compared by
  // identity, so no policy object takes part in telling it apart.
  const SENTINEL = {};
  let rejected = null;
  let out = '';
  function reject(kind, message) {
    rejected = [kind, message];
    throw SENTINEL;
  }
  function emit(s) {
    out += s;
    if (out.length > maxPlanChars) reject('too-large', 'the plan is larger than ' + maxPlanChars + ' bytes of JSON');
  }
  function encode(v, path, depth) {
    const t = typeof v;
    if (t === 'string') return emit(stringify(v));
    if (t === 'number') {
      if (v !== v || v === Infinity || v === -Infinity) reject('invalid-plan', path + ' is ' + v + ', not a finite number');
      return emit('' + v);
    }
    if (t === 'boolean') return emit(v ? 'true' : 'false');
    if (v === null) return emit('null');
    if (t !== 'object') reject('invalid-plan', path + ' is ' + kindOf(v) + '; a plan holds only JSON data');
    if (depth >= 32) reject('invalid-plan', path + ' is nested more than 32 deep (a cycle?)');
    if (isPromise(v)) reject('invalid-plan', path + ' is ' + kindOf(v));
    if (isArray(v)) {
      const n = v.length;
      if (n * 2 > maxPlanChars) reject('too-large', path + ' has ' + n + ' entries: more than ' + maxPlanChars + ' bytes of JSON');
      emit('[');
      for (let i = 0; i < n; i++) {
        if (i > 0) emit(',');
        const p = path + '[' + i + ']';
        const desc = getOwnPropertyDescriptor(v, i);
        if (desc === undefined) reject('invalid-plan', p + ' is a hole in the array');
        if (!hasOwn(desc, 'value')) reject('invalid-plan', p + ' is a getter; a plan holds only plain data');
        encode(desc.value, p, depth + 1);
      }
      return emit(']');
    }
    emit('{');
    const keys = objectKeys(v);
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const p = path + '.' + key;
      const desc = getOwnPropertyDescriptor(v, key);
      if (desc === undefined) continue;
      if (!hasOwn(desc, 'value')) reject('invalid-plan', p + ' is a getter; a plan holds only plain data');
      if (desc.value === undefined) continue;
      emit(first ? stringify(key) + ':' : ',' + stringify(key) + ':');
      first = false;
      encode(desc.value, p, depth + 1);
    }
    return emit('}');
  }
  function planToJson(plan) {
    if (plan === null || typeof plan !== 'object' || isArray(plan) || isPromise(plan)) {
      return ['invalid-plan', 'schedule returned ' + kindOf(plan) + '; it must return a plan { roles: [...] }'];
    }
    out = '';
    rejected = null;
    try {
      encode(plan, 'plan', 0);
      return out;
    } catch (e) {
      if (e === SENTINEL) return rejected;
      return ['throw', 'reading the returned plan threw: ' + describe(e)];
    } finally {
      out = '';
    }
  }

  let shouldRescheduleFn = null;
  let scheduleFn = null;

  function bind() {
    let problems = '';
    try {
      if (typeof shouldReschedule === 'function') shouldRescheduleFn = shouldReschedule;
      else problems += 'shouldReschedule is ' + typeof shouldReschedule + ', not a function. ';
      if (typeof schedule === 'function') scheduleFn = schedule;
      else problems += 'schedule is ' + typeof schedule + ', not a function. ';
    } catch (e) {
      return ['missing-function', describe(e)];
    }
    if (problems === '') return true;
    return ['missing-function', problems + 'A policy declares top-level functions shouldReschedule(ctx) and schedule(ctx).'];
  }

  return function dispatch(op, ctx) {
    if (op === 0) return bind();
    const now = ctx !== null && typeof ctx === 'object' ? ctx.now : undefined;
    clockMs = typeof now === 'number' ? now * 1000 : 0;
    let result;
    try {
      result = op === 1 ? shouldRescheduleFn(ctx) : scheduleFn(ctx);
    } catch (e) {
      return ['throw', describe(e)];
    }
    if (op === 1) {
      if (result === true || result === false) return result;
      return ['invalid-plan', 'shouldReschedule returned ' + kindOf(result) + '; it must return true or false'];
    }
    return planToJson(result);
  };
})`;

/** Installs the stdlib's functions as writable globals, so that a policy may shadow them for itself. */
export const STDLIB_INSTALL_SOURCE = `Object.assign(globalThis, ${STDLIB_SOURCE});`;
