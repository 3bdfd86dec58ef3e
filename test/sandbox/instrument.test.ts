import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sampleCtx, type Ctx } from '../../src/policy/index.js';
import { instrumentFunctionText, instrumentScript, InstrumentError, opNameFor } from '../../src/sandbox/instrument.js';
import { PolicySandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { OPS_PER_CPU_MS, resolveSandboxOptions } from '../../src/sandbox/options.js';
import { NS_PER_OP } from '../../src/evaluate/index.js';

const ctx = (): Ctx => sampleCtx({ nodes: 9, prefillNodes: 4 });
const SCHEDULE = 'function schedule(ctx) { return { roles: ctx.plan.roles }; }';

/** Ops of one shouldReschedule call whose body is `body`, plus its answer. */
function opsOf(body: string, options: SandboxOptions = {}): { ops: number; value: unknown; failure?: string } {
  const sandbox = PolicySandbox.create(`function shouldReschedule(ctx) {\n${body}\n}\n${SCHEDULE}`, options);
  try {
    const r = sandbox.shouldReschedule(ctx());
    return r.ok ? { ops: r.ops, value: r.value } : { ops: r.ops, value: undefined, failure: `${r.failure.kind}: ${r.failure.message}` };
  } finally {
    sandbox.dispose();
  }
}

describe('instrumentScript', () => {
  it('counts each function body entry and each loop body iteration', () => {
    // 1 = shouldReschedule's own entry.
    expect(opsOf('return false;').ops).toBe(1);
    expect(opsOf('for (let i = 0; i < 10; i++) {} return false;').ops).toBe(11);
    expect(opsOf('let i = 0; while (i < 7) i++; return false;').ops).toBe(8);
    expect(opsOf('let i = 0; do i++; while (i < 5); return false;').ops).toBe(6);
    expect(opsOf('for (const k in { a: 1, b: 2, c: 3 }) ; return false;').ops).toBe(4);
    expect(opsOf('for (const x of [1, 2, 3, 4]) { if (x > 9) return true; } return false;').ops).toBe(5);
    expect(opsOf('function f(x) { return x + 1; } f(1); f(2); f(3); return false;').ops).toBe(4);
    expect(opsOf('[1, 2, 3].map((x) => x * 2); return false;').ops).toBe(4);
    expect(opsOf('const add = (a) => (b) => a + b; add(1)(2); return false;').ops).toBe(3);
    expect(opsOf('const o = { get v() { return 1; }, m() { return 2; } }; o.v + o.m(); return false;').ops).toBe(3);
    expect(opsOf('class A { constructor() { this.x = 1; } go() { return this.x; } } new A().go(); return false;').ops).toBe(3);
    expect(opsOf('outer: for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) { if (j === 1) continue outer; } return false;').ops).toBe(1 + 3 + 6);
  });

  it('counts the stdlib the policy calls: predictThroughput is work', () => {
    const own = opsOf('return false;').ops;
    const withStdlib = opsOf('predictThroughput(ctx, ctx.plan.roles); return false;').ops;
    expect(withStdlib).toBeGreaterThan(own + 10);
    // Deterministic: the same call counts the same.
    expect(opsOf('predictThroughput(ctx, ctx.plan.roles); return false;').ops).toBe(withStdlib);
  });

  it('keeps what the code computes: directives, completion, ASI, object-literal arrow bodies', () => {
    expect(opsOf("function f() { 'use strict'; return this; } return f() === undefined;").value).toBe(true);
    expect(opsOf("const f = () => ({ a: 1 }); let s = 0; for (const k in f()) s++; return s === 1;").value).toBe(true);
    expect(opsOf('let n = 0\nfor (let i = 0; i < 3; i++) n += i\nreturn n === 3').value).toBe(true);
    expect(opsOf('let s = 0; if (true) for (let i = 0; i < 4; i++) s += i; else s = -1; return s === 6;').value).toBe(true);
    expect(opsOf('const g = function* () { yield 1; yield 2; }; let s = 0; for (const v of g()) s += v; return s === 3;').value).toBe(true);
  });

  it('splices text in without regenerating: comments and line numbers stay', () => {
    const source = '// head\nfunction f(a) {\n  // inside\n  return a; /* tail */\n}\n';
    const out = instrumentScript(source, '__x');
    expect(out).toBe('// head\nfunction f(a) {(0).__x;\n  // inside\n  return a; /* tail */\n}\n');
    expect(instrumentScript('while (a) b();', '__x')).toBe('while (a) {(0).__x; b();}');
    expect(instrumentScript('const f = (a) => a * 2;', '__x')).toBe('const f = (a) => ((0).__x, a * 2);');
    expect(instrumentScript("function g() { 'use strict'; return 1; }", '__x')).toBe("function g() { 'use strict';;(0).__x; return 1; }");
  });

  it('rejects what it cannot parse, and Function text that is not one function', () => {
    expect(() => instrumentScript('function (', '__x')).toThrow(InstrumentError);
    expect(() => instrumentFunctionText('(function anonymous(a) {}, (function(\n) {\n\n})', '__x')).toThrow(InstrumentError);
    expect(instrumentFunctionText('(function anonymous(a\n) {\nreturn a\n})', '__x')).toBe('(function anonymous(a\n) {(0).__x;\nreturn a\n})');
  });

  it('the op name occurs in none of the sources, so no policy text can collide with it', () => {
    expect(opNameFor(['function f() {}'])).toBe('__autopoiesisOps');
    expect(opNameFor(['var __autopoiesisOps = 0;'])).toBe('__autopoiesisOps1');
    expect(opNameFor(['// __autopoiesisOps __autopoiesisOps1', '"__autopoiesisOps2"'])).toBe('__autopoiesisOps3');
  });
});

describe('the counter cannot be tampered with from policy code', () => {
  const LOOP = 'let s = 0; for (let i = 0; i < 1000; i++) s += i;';
  const attacks: [string, string][] = [
    ['a variable with the base name', 'var __autopoiesisOps = 0; __autopoiesisOps = () => {};'],
    [
      'redefining or deleting the getter, by a name read from its own source',
      `const name = shouldReschedule.toString().match(/\\(0\\)\\.(\\w+)/)[1];
       try { Object.defineProperty(Number.prototype, name, { get() {} }); } catch (e) {}
       try { delete Number.prototype[name]; } catch (e) {}
       try { Number.prototype[name] = 0; } catch (e) {}`,
    ],
    [
      'shadowing through with(proxy) and an eval-injected var',
      `const name = shouldReschedule.toString().match(/\\(0\\)\\.(\\w+)/)[1];
       eval('var ' + name + ' = 0');
       with (new Proxy({}, { has: () => true, get: () => 0 })) { for (let i = 0; i < 1000; i++) s += i; }`,
    ],
    ['replacing Number.prototype', 'try { Object.setPrototypeOf(Number.prototype, null); Number.prototype.valueOf = null; } catch (e) {}'],
  ];
  for (const [what, attack] of attacks) {
    it(`${what}: the loop is still counted`, () => {
      const r = opsOf(`${attack}\n${LOOP}\nreturn false;`);
      expect(r.failure).toBeUndefined();
      expect(r.ops).toBeGreaterThanOrEqual(1000);
    });
  }

  it('code built at run time is counted: eval, Function and the generator/async constructors', () => {
    const n = 500;
    const runtime = [
      `eval('for (let i = 0; i < ${n}; i++) {}');`,
      `(0, eval)('for (let i = 0; i < ${n}; i++) {}');`,
      `globalThis['ev' + 'al']('for (let i = 0; i < ${n}; i++) {}');`,
      `new Function('n', 'for (let i = 0; i < n; i++) {}')(${n});`,
      `(function () {}).constructor.constructor('for (let i = 0; i < ${n}; i++) {}')();`,
      `Object.getPrototypeOf(function* () {}).constructor('for (let i = 0; i < ${n}; i++) {} yield 1')().next();`,
      `Object.getPrototypeOf(async function () {}).constructor('for (let i = 0; i < ${n}; i++) {}')();`,
    ];
    for (const code of runtime) {
      const r = opsOf(`${code}\nreturn false;`);
      expect(r.failure, code).toBeUndefined();
      expect(r.ops, code).toBeGreaterThanOrEqual(n);
    }
    // They still work as the builtins do.
    expect(opsOf("return new Function('a', 'b', 'return a + b')(2, 3) === 5 && Function('return this')() === globalThis;").value).toBe(true);
    expect(opsOf("return eval('1 + 1') === 2 && eval(7) === 7 && (function () {}).constructor === Function;").value).toBe(true);
    expect(opsOf("try { Function('a) { }; (function (', ''); return false; } catch (e) { return e instanceof SyntaxError; }").value).toBe(true);
  });

  it('stack frames hand out no uncounted builtin (the real eval or Function)', () => {
    const r = opsOf(`
      const found = [];
      Error.prepareStackTrace = (e, frames) => frames.map((f) => f.getFunction());
      globalThis.grab = () => { found.push(...new Error().stack); };
      eval('grab()');
      new Function('grab()')();
      Error.prepareStackTrace = undefined;
      const native = '[native ' + 'code]';
      return found.length > 4 && !found.some((f) => typeof f === 'function' && Function.prototype.toString.call(f).includes(native));`);
    expect(r.failure).toBeUndefined();
    expect(r.value).toBe(true);
  });

  it('a call that throws or is stopped is charged the ops it did, and the count is readable after the isolate is gone', () => {
    const thrown = opsOf('for (let i = 0; i < 800; i++) {} throw new Error("late");');
    expect(thrown.failure).toMatch(/^throw/);
    expect(thrown.ops).toBe(801);

    // An op budget too large to reach: the wall-clock watchdog stops the loop and takes the isolate.
    const sandbox = PolicySandbox.create(`function shouldReschedule(ctx) { for (;;) {} }\n${SCHEDULE}`, { wallLimitMs: 300, cpuLimitMs: 100, opLimit: 1e15 });
    const r = sandbox.shouldReschedule(ctx());
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe('timeout');
    expect(r.ops).toBeGreaterThan(1000);
    expect(sandbox.isDisposed).toBe(true);
    expect(sandbox.cumulativeOps).toBeGreaterThanOrEqual(r.ops);
    sandbox.dispose();
  });
});

describe('the per-call op budget', () => {
  it('stops a runaway call after exactly the same op every time, keeping the isolate', () => {
    for (let run = 0; run < 3; run++) {
      const sandbox = PolicySandbox.create(`function shouldReschedule(ctx) { for (;;) {} }\n${SCHEDULE}`, { opLimit: 50_000 });
      const r = sandbox.shouldReschedule(ctx());
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.failure.kind).toBe('timeout');
      if (!r.ok) expect(r.failure.message).toMatch(/budget of 50000 counted operations/);
      expect(r.ops).toBe(50_001);
      expect(sandbox.isDisposed).toBe(false);
      // The next call has a budget of its own.
      expect(sandbox.schedule(ctx()).ok).toBe(true);
      sandbox.dispose();
    }
  });

  it('cannot be caught and outlived: a policy that catches the error still fails as timeout', () => {
    const policy = `function shouldReschedule(ctx) {
      for (;;) { try { for (;;) {} } catch (e) {} }
    }
    function schedule(ctx) {
      try { for (;;) {} } catch (e) { return { roles: ctx.nodes.map(function (n) { return n.role; }) }; }
    }`;
    const sandbox = PolicySandbox.create(policy, { opLimit: 10_000 });
    const a = sandbox.shouldReschedule(ctx());
    const b = sandbox.schedule(ctx());
    for (const r of [a, b]) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.failure.kind).toBe('timeout');
    }
    sandbox.dispose();
  });

  it('bounds loading too, and is cpuLimitMs at the counted cost per op by default', () => {
    expect(() => PolicySandbox.create(`for (;;) {}\nfunction shouldReschedule() { return false; }\n${SCHEDULE}`, { opLimit: 1000 })).toThrow(/load ran past its budget of 1000/);
    expect(resolveSandboxOptions({ cpuLimitMs: 100 }).opLimit).toBe(Math.round(100 * 1e6 / NS_PER_OP));
    expect(OPS_PER_CPU_MS).toBe(1e6 / NS_PER_OP);
  });

  it('with counting off, nothing is instrumented and calls report 0 ops', () => {
    const probe = "return shouldReschedule.toString().includes('__autopoiesis' + 'Ops');";
    expect(opsOf(`for (let i = 0; i < 100; i++) {} ${probe}`, { countOps: false })).toEqual({ ops: 0, value: false });
    expect(opsOf(probe).value).toBe(true);
  });
});

describe('instrumented seeds compute what uninstrumented ones do', () => {
  const seeds = readdirSync('seeds').filter((f) => f.endsWith('.js')).sort();
  const ctxs = Array.from({ length: 12 }, (_, i) => sampleCtx({ nodes: 9, prefillNodes: 1 + (i % 8), slices: 10, seed: i + 1, now: 600 + 60 * i }));
  for (const file of seeds) {
    it(`${file}: same answers to shouldReschedule and schedule on varied ctxs`, () => {
      const source = readFileSync(`seeds/${file}`, 'utf8');
      const counted = PolicySandbox.create(source, { name: file, seed: 3 });
      const plain = PolicySandbox.create(source, { name: file, seed: 3, countOps: false });
      try {
        let ops = 0;
        for (const c of ctxs) {
          const a = counted.shouldReschedule(c);
          const b = plain.shouldReschedule(c);
          expect(a.ok && a.value).toEqual(b.ok && b.value);
          const pa = counted.schedule(c);
          const pb = plain.schedule(c);
          expect(pa.ok ? pa.plan : pa.failure.message).toEqual(pb.ok ? pb.plan : pb.failure.message);
          ops += a.ops + pa.ops;
          expect(b.ops + pb.ops).toBe(0);
        }
        expect(ops).toBeGreaterThan(0);
      } finally {
        counted.dispose();
        plain.dispose();
      }
    });
  }
});
