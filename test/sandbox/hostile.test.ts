import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleCtx, type Ctx } from '../../src/policy/index.js';
import {
  FAILURE_KINDS,
  PolicyFailure,
  PolicySandbox,
  type FailureKind,
  type SandboxOptions,
  type ScheduleResult,
  type ShouldRescheduleResult,
} from '../../src/sandbox/index.js';
import { heldSandboxHandles } from '../../src/sandbox/policy-sandbox.js';
import { hostState } from './host-state.js';

/**
 * The hostile corpus: every file in hostile/ is a policy that attacks the
 * sandbox in one way, and says in its header what it tries (`Tries:`), which
 * call to make (`@call load|shouldReschedule|schedule`), how it must end
 * (`@expect <kind>`), and optionally how often to call (`@repeat`), the
 * wall-clock watchdog (`@wall`, ms, default 3000: runaway loops set a short
 * one, memory bombs a long one so that the heap fills before it fires) and
 * the CPU budget per call (`@cpu`, ms, default 100; fixtures about output or
 * memory raise it, so that a busy machine cannot turn them into timeouts).
 */
interface Fixture {
  file: string;
  source: string;
  tries: string;
  call: 'load' | 'shouldReschedule' | 'schedule';
  expect: FailureKind;
  repeat: number;
  wallMs: number;
  cpuMs: number;
}

const dir = fileURLToPath(new URL('./hostile/', import.meta.url));

function readFixture(file: string): Fixture {
  const source = readFileSync(dir + file, 'utf8');
  const tag = (name: string): string | undefined => source.match(new RegExp(`^// @${name} (\\S+)`, 'm'))?.[1];
  const tries = source.match(/^\/\/ Tries: (.+)$/m)?.[1];
  const call = tag('call');
  const expected = tag('expect');
  if (!tries || !call || !expected) throw new Error(`${file}: header needs Tries:, @call and @expect`);
  if (!['load', 'shouldReschedule', 'schedule'].includes(call)) throw new Error(`${file}: bad @call ${call}`);
  if (!(FAILURE_KINDS as readonly string[]).includes(expected)) throw new Error(`${file}: bad @expect ${expected}`);
  return {
    file,
    source,
    tries,
    call: call as Fixture['call'],
    expect: expected as FailureKind,
    repeat: Number(tag('repeat') ?? 1),
    wallMs: Number(tag('wall') ?? 3000),
    cpuMs: Number(tag('cpu') ?? 100),
  };
}

const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .sort()
  .map(readFixture);

/** 4P5D with the last node down, so that "only down nodes prefill" is expressible. */
function hostileCtx(): Ctx {
  const ctx = sampleCtx({ nodes: 9, prefillNodes: 4 });
  ctx.nodes[8]!.state = 'down';
  return ctx;
}

function optionsFor(f: Fixture, seed = 7): SandboxOptions {
  return { cpuLimitMs: f.cpuMs, wallLimitMs: f.wallMs, memoryLimitMb: 64, seed, name: f.file };
}

function loadFailure(f: Fixture): PolicyFailure {
  try {
    PolicySandbox.create(f.source, optionsFor(f)).dispose();
  } catch (error) {
    if (error instanceof PolicyFailure) return error;
    throw error;
  }
  throw new Error(`${f.file} loaded`);
}

function callUntilFailure(sandbox: PolicySandbox, f: Fixture, ctx: Ctx): ShouldRescheduleResult | ScheduleResult {
  let result: ShouldRescheduleResult | ScheduleResult | undefined;
  for (let i = 0; i < f.repeat; i++) {
    result = f.call === 'schedule' ? sandbox.schedule(ctx) : sandbox.shouldReschedule(ctx);
    if (!result.ok) break;
  }
  return result!;
}

describe('hostile policy corpus', () => {
  let before: Record<string, unknown>;
  beforeAll(() => {
    before = hostState();
  });
  afterAll(() => {
    expect(hostState()).toEqual(before);
  });

  it('has fixtures for every failure kind', () => {
    const kinds = new Set(fixtures.map((f) => f.expect));
    expect([...kinds].sort()).toEqual([...FAILURE_KINDS].sort());
    expect(fixtures.length).toBeGreaterThanOrEqual(40);
  });

  for (const f of fixtures) {
    it(`${f.file} (${f.call} -> ${f.expect}): ${f.tries}`, () => {
      const hostBefore = hostState();
      const handlesBefore = heldSandboxHandles();
      if (f.call === 'load') {
        const failure = loadFailure(f);
        // A failed load gives back its context and dispatcher handles (left to the GC, they can abort the process).
        expect(heldSandboxHandles()).toBe(handlesBefore);
        expect(failure.kind, failure.message).toBe(f.expect);
        expect(failure.phase).toBe('load');
        expect(failure.message.length).toBeGreaterThan(0);
      } else {
        const ctx = hostileCtx();
        const ctxCopy = structuredClone(ctx);
        const sandbox = PolicySandbox.create(f.source, optionsFor(f));
        try {
          const result = callUntilFailure(sandbox, f, ctx);
          expect(result.ok, `${f.file} succeeded`).toBe(false);
          if (result.ok) return;
          const { failure } = result;
          expect(failure).toBeInstanceOf(PolicyFailure);
          expect(failure.kind, failure.message).toBe(f.expect);
          expect(failure.phase).toBe(f.call);
          expect(failure.message.length).toBeGreaterThan(0);
          expect(failure.message.length).toBeLessThan(2200);
          expect(result.cpuMs).toBeGreaterThanOrEqual(0);
          // The policy got a copy: the host's ctx is untouched.
          expect(ctx).toEqual(ctxCopy);
          if (failure.fatal) {
            // The isolate is gone; later calls fail at once, with the same kind.
            expect(sandbox.fatalFailure?.kind).toBe(f.expect);
            // "At once": the call never enters the isolate (no CPU charged, not counted as a call).
            const callsBefore = sandbox.calls;
            const again = sandbox.shouldReschedule(ctx);
            expect(again.cpuMs).toBe(0);
            expect(sandbox.calls).toBe(callsBefore);
            expect(again.ok).toBe(false);
            if (!again.ok) {
              expect(again.failure.kind).toBe(f.expect);
              expect(again.failure.fatal).toBe(true);
            }
          } else {
            // The isolate survives a non-fatal failure and still answers.
            const other = f.call === 'schedule' ? sandbox.shouldReschedule(ctx) : sandbox.schedule(ctx);
            expect(other.ok).toBe(true);
          }
        } finally {
          sandbox.dispose();
        }
        expect(heldSandboxHandles()).toBe(handlesBefore);
      }
      expect(hostState()).toEqual(hostBefore);
    });
  }

  it('memory and runaway failures leave room for a fresh instance', () => {
    const ok = 'function shouldReschedule(ctx) { return true; } function schedule(ctx) { return { roles: ctx.plan.roles }; }';
    const sandbox = PolicySandbox.create(ok, { name: 'after-the-storm' });
    try {
      expect(sandbox.schedule(hostileCtx()).ok).toBe(true);
    } finally {
      sandbox.dispose();
    }
  });

  it('Math.random fixture fails the same way for the same seed, differently for another', () => {
    const f = fixtures.find((x) => x.file === 'math-random.js')!;
    const messageWith = (seed: number): string => {
      const sandbox = PolicySandbox.create(f.source, optionsFor(f, seed));
      try {
        const result = sandbox.schedule(hostileCtx());
        return result.ok ? 'ok' : result.failure.message;
      } finally {
        sandbox.dispose();
      }
    };
    expect(messageWith(11)).toBe(messageWith(11));
    expect(messageWith(11)).not.toBe(messageWith(12));
  });

  it('the host process is still fine', () => {
    expect(typeof process.memoryUsage().heapUsed).toBe('number');
    expect(Math.random()).toBeLessThan(1);
    // The host's clock is untouched: read in order, its readings are in order.
    const before = Date.now();
    const date = new Date().getTime();
    expect(before).toBeLessThanOrEqual(date);
    expect(date).toBeLessThanOrEqual(Date.now());
  });
});
