import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { sampleCtx, STDLIB_NAMES, validatePlan, type Ctx } from '../../src/policy/index.js';
import { PolicyFailure, PolicySandbox, SandboxDisposedError, type SandboxOptions } from '../../src/sandbox/index.js';

const open: PolicySandbox[] = [];
function load(source: string, options: SandboxOptions = {}): PolicySandbox {
  const sandbox = PolicySandbox.create(source, options);
  open.push(sandbox);
  return sandbox;
}
afterEach(() => {
  for (const s of open.splice(0)) s.dispose();
});

const KEEP = 'function schedule(ctx) { return { roles: ctx.plan.roles }; }';

/** The example policy of CONTRACT.md, which must work as printed. */
function contractExample(): string {
  const md = readFileSync(fileURLToPath(new URL('../../src/policy/CONTRACT.md', import.meta.url)), 'utf8');
  return md.match(/```js\n([\s\S]*?)```/)![1]!;
}

/** Globals a policy may see: the JS builtins, V8's console, the stdlib, and its own declarations. */
const BUILTINS = `Object Function Array Number parseFloat parseInt Infinity NaN undefined Boolean String Symbol Date
  Promise RegExp Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError URIError globalThis JSON
  Math Intl ArrayBuffer Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array
  Uint8ClampedArray BigUint64Array BigInt64Array DataView Map BigInt Set WeakMap WeakSet Proxy Reflect decodeURI
  decodeURIComponent encodeURI encodeURIComponent escape unescape eval isFinite isNaN console`.split(/\s+/);

describe('PolicySandbox: a well-behaved policy', () => {
  it('answers many calls, with valid plans, and accounts CPU per call and in total', () => {
    const sandbox = load(contractExample(), { seed: 1, name: 'contract-example' });
    let total = 0;
    let previous = 0;
    for (let i = 0; i < 200; i++) {
      const ctx = sampleCtx({ seed: i, now: 3600 + 5 * i, prefillNodes: 1 + (i % 7) });
      const should = sandbox.shouldReschedule(ctx);
      expect(should.ok).toBe(true);
      const plan = sandbox.schedule(ctx);
      expect(plan.ok).toBe(true);
      if (!should.ok || !plan.ok) return;
      expect(validatePlan(plan.plan, ctx).ok).toBe(true);
      // How fast a call is belongs to bench:sandbox; here, that each is measured and added up.
      for (const cpuMs of [should.cpuMs, plan.cpuMs]) {
        expect(cpuMs).toBeGreaterThan(0);
        expect(Number.isFinite(cpuMs)).toBe(true);
        total += cpuMs;
      }
      expect(sandbox.cumulativeCpuMs).toBeGreaterThan(previous);
      previous = sandbox.cumulativeCpuMs;
    }
    expect(sandbox.calls).toBe(400);
    expect(sandbox.cumulativeCpuMs).toBeCloseTo(total, 6);
    expect(sandbox.loadCpuMs).toBeGreaterThanOrEqual(0);
    expect(sandbox.fatalFailure).toBeNull();
  });

  it('reports CPU time below a millisecond with sub-millisecond precision', () => {
    const sandbox = load(`function shouldReschedule(ctx) { return false; } ${KEEP}`);
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const r = sandbox.shouldReschedule(sampleCtx());
      times.push(r.cpuMs);
    }
    // Fractions of a millisecond, not whole ms (how small a call is, is bench:sandbox's business).
    expect(times.some((t) => t > 0 && !Number.isInteger(t))).toBe(true);
    expect(times.some((t) => t > 0 && !Number.isInteger(t * 1000))).toBe(true);
  });

  it('keeps the policy globals between calls (one isolate per instance)', () => {
    const sandbox = load(`let calls = 0; function shouldReschedule(ctx) { calls++; return calls % 3 === 0; } ${KEEP}`);
    const answers = Array.from({ length: 6 }, () => {
      const r = sandbox.shouldReschedule(sampleCtx());
      return r.ok && r.value;
    });
    expect(answers).toEqual([false, false, true, false, false, true]);
  });

  it('accepts entry points declared with const/let and arrow functions', () => {
    const sandbox = load('const shouldReschedule = (ctx) => ctx.now > 0;\nlet schedule = (ctx) => ({ roles: ctx.plan.roles });');
    expect(sandbox.shouldReschedule(sampleCtx())).toMatchObject({ ok: true, value: true });
    expect(sandbox.schedule(sampleCtx()).ok).toBe(true);
  });

  it('binds the entry points once: reassigning them later changes nothing', () => {
    const sandbox = load(`function shouldReschedule(ctx) { shouldReschedule = function () { return 'hijacked'; }; return true; } ${KEEP}`);
    expect(sandbox.shouldReschedule(sampleCtx())).toMatchObject({ ok: true, value: true });
    expect(sandbox.shouldReschedule(sampleCtx())).toMatchObject({ ok: true, value: true });
  });

  it('lets console.log be called (it prints nothing)', () => {
    const sandbox = load(`function shouldReschedule(ctx) { console.log('hello', ctx.now); return true; } ${KEEP}`);
    expect(sandbox.shouldReschedule(sampleCtx())).toMatchObject({ ok: true, value: true });
  });

  it('the ctx it gets is a copy: changing it changes nothing on the host', () => {
    const ctx = sampleCtx();
    const before = structuredClone(ctx);
    const sandbox = load(`function shouldReschedule(ctx) { ctx.nodes.length = 0; ctx.now = -1; return true; } ${KEEP}`);
    sandbox.shouldReschedule(ctx);
    expect(ctx).toEqual(before);
  });
});

describe('PolicySandbox: simulated clock and seeded randomness', () => {
  it('Date.now() and new Date() give ctx.now; dates from arguments stay ordinary', () => {
    const sandbox = load(`
      function shouldReschedule(ctx) {
        const ms = ctx.now * 1000;
        class Stamp extends Date {}
        const checks = [
          Date.now() === ms,
          new Date().getTime() === ms,
          new Stamp().getTime() === ms,
          new Date() instanceof Date,
          new Date().constructor === Date,
          typeof Date() === 'string',
          new Date(0).getTime() === 0,
          new Date(2020, 0, 1).getFullYear() === 2020,
          Date.UTC(2020, 0, 1) === 1577836800000,
          Date.parse('1970-01-01T00:00:01Z') === 1000,
        ];
        const failed = checks.map((ok, i) => (ok ? -1 : i)).filter((i) => i >= 0);
        if (failed.length) throw new Error('failed checks ' + failed.join(','));
        return true;
      }
      ${KEEP}`);
    for (const now of [0, 1.5, 3600, 86_400 * 3 + 0.25]) {
      const r = sandbox.shouldReschedule({ ...sampleCtx(), now });
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true, value: true });
    }
  });

  const coin = `
    function shouldReschedule(ctx) {
      const x = Math.random();
      if (!(x >= 0 && x < 1)) throw new Error('out of range ' + x);
      return x < 0.5;
    }
    ${KEEP}`;
  const flips = (seed: number, n = 128): boolean[] => {
    const sandbox = load(coin, { seed });
    return Array.from({ length: n }, () => {
      const r = sandbox.shouldReschedule(sampleCtx());
      if (!r.ok) throw r.failure;
      return r.value;
    });
  };

  it('Math.random is the same stream for the same seed, another for another seed, and fair', () => {
    const a = flips(42);
    expect(flips(42)).toEqual(a);
    expect(flips(43)).not.toEqual(a);
    const heads = a.filter(Boolean).length;
    expect(heads).toBeGreaterThan(40);
    expect(heads).toBeLessThan(88);
  });

  it('does not touch the host Math.random or Date', () => {
    const random = Math.random;
    const now = Date.now;
    flips(1, 4);
    expect(Math.random).toBe(random);
    expect(Date.now).toBe(now);
    const before = Date.now();
    const date = new Date().getTime();
    expect(before).toBeLessThanOrEqual(date);
    expect(date).toBeLessThanOrEqual(Date.now());
  });
});

describe('PolicySandbox: isolation', () => {
  it('exposes only JS builtins, console, the stdlib and the policy to the policy', () => {
    const sandbox = load(`
      function shouldReschedule(ctx) { return true; }
      function schedule(ctx) {
        throw new Error('<<' + JSON.stringify(Object.getOwnPropertyNames(globalThis)) + '>>');
      }`);
    const r = sandbox.schedule(sampleCtx());
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const names = JSON.parse(r.failure.message.match(/<<(.*)>>/)![1]!) as string[];
    const allowed = new Set([...BUILTINS, ...STDLIB_NAMES, 'shouldReschedule', 'schedule']);
    expect(names.filter((n) => !allowed.has(n))).toEqual([]);
    for (const absent of ['require', 'process', 'module', 'global', 'Buffer', 'fetch', 'setTimeout', 'setInterval',
      'setImmediate', 'queueMicrotask', 'performance', 'WeakRef', 'FinalizationRegistry', 'SharedArrayBuffer', 'Atomics',
      'WebAssembly']) {
      expect(names).not.toContain(absent);
    }
    for (const name of STDLIB_NAMES) expect(names).toContain(name);
  });

  it('a policy may shadow a stdlib name without changing what the stdlib computes', () => {
    const ctx = sampleCtx();
    const sandbox = load(`
      function mean(xs) { return 42; }
      function meanWorkload(ctx) { return null; }
      const expected = ${JSON.stringify(ctx.plan.roles)};
      function shouldReschedule(ctx) {
        return mean([1, 2]) === 42 && meanWorkload(ctx) === null && predictThroughput(ctx, expected) > 0;
      }
      ${KEEP}`);
    expect(sandbox.shouldReschedule(ctx)).toMatchObject({ ok: true, value: true });
  });

  it('two instances share nothing', () => {
    const a = load(`var shared = 'a'; Object.prototype.mark = 'a'; function shouldReschedule(ctx) { return true; } ${KEEP}`);
    const b = load(`function shouldReschedule(ctx) { return typeof shared === 'undefined' && ({}).mark === undefined; } ${KEEP}`);
    expect(a.shouldReschedule(sampleCtx()).ok).toBe(true);
    expect(b.shouldReschedule(sampleCtx())).toMatchObject({ ok: true, value: true });
    expect(({} as Record<string, unknown>).mark).toBeUndefined();
  });
});

describe('PolicySandbox: lifecycle and options', () => {
  it('dispose() is idempotent and later calls throw SandboxDisposedError', () => {
    const sandbox = PolicySandbox.create(`function shouldReschedule(ctx) { return true; } ${KEEP}`);
    sandbox.dispose();
    sandbox.dispose();
    expect(sandbox.isDisposed).toBe(true);
    expect(() => sandbox.shouldReschedule(sampleCtx())).toThrow(SandboxDisposedError);
  });

  it('a load failure is thrown as a PolicyFailure and leaves nothing behind', () => {
    let failure: unknown;
    try {
      PolicySandbox.create('function shouldReschedule(ctx) { return true; }');
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(PolicyFailure);
    expect((failure as PolicyFailure).kind).toBe('missing-function');
    expect((failure as PolicyFailure).exitCode).toBe(2);
  });

  it('rejects limits that make no sense', () => {
    const src = `function shouldReschedule(ctx) { return true; } ${KEEP}`;
    expect(() => PolicySandbox.create(src, { memoryLimitMb: 4 })).toThrow(InputError);
    expect(() => PolicySandbox.create(src, { cpuLimitMs: 100, wallLimitMs: 50 })).toThrow(InputError);
    expect(() => PolicySandbox.create(src, { cpuLimitMs: -1 })).toThrow(InputError);
    expect(() => PolicySandbox.create(src, { unknown: 1 } as SandboxOptions)).toThrow(InputError);
  });

  it('defaults: 64 MB, 100 ms CPU, 1 s watchdog, 64 KB plans', () => {
    const sandbox = load(`function shouldReschedule(ctx) { return true; } ${KEEP}`);
    expect(sandbox.limits).toMatchObject({ memoryLimitMb: 64, cpuLimitMs: 100, wallLimitMs: 1000, maxPlanBytes: 65536, seed: 0 });
  });

  it('a ctx that cannot be copied is the caller’s bug: it throws instead of blaming the policy', () => {
    const sandbox = load(`function shouldReschedule(ctx) { return true; } ${KEEP}`);
    const ctx = { ...sampleCtx(), hook: () => 1 } as unknown as Ctx;
    expect(() => sandbox.shouldReschedule(ctx)).toThrow();
    expect(sandbox.shouldReschedule(sampleCtx())).toMatchObject({ ok: true, value: true });
  });
});
