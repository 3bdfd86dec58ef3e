import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/common/rng.js';
import { checkPolicy, createStructuralMutator, MutationFailed } from '../../../src/evolve/mutators/index.js';
import { parsePolicy } from '../../../src/evolve/mutators/policy-shape.js';
import { dropStatement } from '../../../src/evolve/mutators/structural/drop-statement.js';
import { duplicateStatement } from '../../../src/evolve/mutators/structural/duplicate-statement.js';
import type { EditContext } from '../../../src/evolve/mutators/structural/edit.js';
import { flipComparison } from '../../../src/evolve/mutators/structural/flip-comparison.js';
import { perturbLiteral } from '../../../src/evolve/mutators/structural/perturb-literal.js';
import { shiftComparison } from '../../../src/evolve/mutators/structural/shift-comparison.js';
import { swapFunction } from '../../../src/evolve/mutators/structural/swap-function.js';
import { BARE, input, TINY } from './fixtures.js';

function context(code: string, inspirations: EditContext['inspirations'] = []): EditContext {
  return { code, program: parsePolicy(code), inspirations };
}

function policy(body: string): string {
  return `function shouldReschedule(ctx) {\n  return true;\n}\n\n${body}\n`;
}

const seeds = readdirSync('seeds')
  .filter((f) => f.endsWith('.js'))
  .sort()
  .map((f, i) => ({ id: 100 + i, code: readFileSync(join('seeds', f), 'utf8'), fitness: null }));

async function failure(promise: Promise<unknown>): Promise<MutationFailed> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MutationFailed);
  return error as MutationFailed;
}

describe('perturb literal', () => {
  it('moves an integer on a log scale and keeps it an integer', () => {
    const code = policy('const HOLD = 120;\nfunction schedule(ctx) {\n  return ctx.plan;\n}');
    const edit = perturbLiteral.apply(context(code), new Rng(3))!;
    const match = /^perturb literal 120 -> (\d+) at top level \(line 5\)$/.exec(edit.description);
    expect(match, edit.description).not.toBeNull();
    const next = Number(match![1]);
    expect(next).not.toBe(120);
    expect(edit.code).toBe(code.replace('120', String(next)));
  });

  it('keeps a real a real with three significant digits', () => {
    const code = policy('function schedule(ctx) {\n  return ctx.now * 0.35;\n}');
    const edit = perturbLiteral.apply(context(code), new Rng(5))!;
    expect(edit.description).toMatch(/^perturb literal 0\.35 -> [0-9.]+ in schedule \(line 6\)$/);
    const next = Number(/-> ([0-9.]+)/.exec(edit.description)![1]);
    expect(Number(next.toPrecision(3))).toBe(next);
    expect(next).not.toBe(0.35);
  });

  it('draws factors of exp(N(0, 0.5))', () => {
    const code = policy('function schedule(ctx) {\n  return ctx.now * 1000.5;\n}');
    const logs: number[] = [];
    for (let seed = 0; seed < 400; seed++) {
      const edit = perturbLiteral.apply(context(code), new Rng(seed))!;
      logs.push(Math.log(Number(/-> ([0-9.e+]+)/.exec(edit.description)![1]) / 1000.5));
    }
    const mean = logs.reduce((s, x) => s + x, 0) / logs.length;
    const sd = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / logs.length);
    expect(Math.abs(mean)).toBeLessThan(0.1);
    expect(sd).toBeGreaterThan(0.4);
    expect(sd).toBeLessThan(0.6);
  });

  it('skips zeros, subscripts, +/- 1 and loop initialisers and updates', () => {
    const code = policy('function schedule(ctx) {\n  let s = 0;\n  for (let i = 1; i < ctx.nodes.length - 1; i += 1) s = s + ctx.nodes[0].running;\n  return ctx.plan;\n}');
    expect(perturbLiteral.apply(context(code), new Rng(1))).toBeNull();
  });

  it('skips bit-level constants: operands of ^ | & shifts and Math.imul, and hex literals', () => {
    const mixer =
      'function schedule(ctx) {\n  let t = (ctx.seed + 0x6d2b79f5) >>> 0;\n  t = Math.imul(t ^ (t >>> 15), t | 61);\n  t ^= 7;\n  return (t & 255) * 3 > 40 ? ctx.plan : ctx.plan;\n}';
    // Only the decision's constants move: the multiplier and the threshold.
    expect(movedLiterals(policy(mixer), 60)).toEqual(['3', '40']);
  });

  it('skips a seed hashed into a PRNG and the divisor that scales its bits, keeps constants under a truncation', () => {
    // The shapes of the lookahead seed's forecast PRNG, where a 10-minute run's winner moved 4294967296 and 1000.
    const prng =
      'function schedule(ctx) {\n  let t = (ctx.seed * 2654435761) ^ Math.floor(ctx.now * 1000);\n  const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;\n' +
      '  const p = Math.floor(ctx.now * 0.5) | 0;\n  return u * 7 > p / 60 ? ctx.plan : ctx.plan;\n}';
    expect(movedLiterals(policy(prng), 80)).toEqual(['0.5', '60', '7']);
  });

  it('never turns an integer into zero', () => {
    const code = policy('function schedule(ctx) {\n  return Math.max(1, ctx.now);\n}');
    for (let seed = 0; seed < 100; seed++) {
      const edit = perturbLiteral.apply(context(code), new Rng(seed))!;
      const next = Number(/-> (\d+)/.exec(edit.description)![1]);
      expect(next).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('flip comparison', () => {
  it('changes a relational operator to another of the same precedence', () => {
    const code = policy('function schedule(ctx) {\n  if (ctx.now > 5) return ctx.plan;\n  return ctx.plan;\n}');
    const edit = flipComparison.apply(context(code), new Rng(2))!;
    const match = /^flip > to (<|<=|>=) in schedule \(line 6\)$/.exec(edit.description);
    expect(match, edit.description).not.toBeNull();
    expect(edit.code).toBe(code.replace('ctx.now > 5', `ctx.now ${match![1]} 5`));
  });

  it('negates an equality and finds the operator between parentheses and comments', () => {
    const code = policy('function schedule(ctx) {\n  if ((ctx.now) /* > */ === (3)) return ctx.plan;\n  return ctx.plan;\n}');
    const edit = flipComparison.apply(context(code), new Rng(1))!;
    expect(edit.description).toBe('flip === to !== in schedule (line 6)');
    expect(edit.code).toContain('(ctx.now) /* > */ !== (3)');
  });
});

describe('shift comparison', () => {
  it('adds 5-20 % to the threshold a comparison tests', () => {
    const code = policy('function schedule(ctx) {\n  if (ctx.now < 120) return ctx.plan;\n  return ctx.plan;\n}');
    const seen = new Set<number>();
    for (let seed = 0; seed < 50; seed++) {
      const edit = shiftComparison.apply(context(code), new Rng(seed))!;
      const match = /^shift < threshold 120 -> (\d+) in schedule \(line 6\)$/.exec(edit.description);
      expect(match, edit.description).not.toBeNull();
      const delta = Math.abs(Number(match![1]) - 120);
      expect(delta).toBeGreaterThanOrEqual(6);
      expect(delta).toBeLessThanOrEqual(24);
      seen.add(Math.sign(Number(match![1]) - 120));
    }
    expect(seen).toEqual(new Set([1, -1]));
  });

  it('shifts a negative threshold with its sign and a small integer by one unit', () => {
    const code = policy('function schedule(ctx) {\n  if (-2 >= ctx.now) return ctx.plan;\n  return ctx.plan;\n}');
    const edit = shiftComparison.apply(context(code), new Rng(4))!;
    expect(edit.description).toMatch(/^shift >= threshold -2 -> -(1|3) in schedule/);
    expect(checkPolicy(edit.code).ok).toBe(true);
  });

  it('has nothing to do without a number in a comparison', () => {
    const code = policy('function schedule(ctx) {\n  if (ctx.now < ctx.seed) return ctx.plan;\n  return ctx.plan;\n}');
    expect(shiftComparison.apply(context(code), new Rng(1))).toBeNull();
  });
});

describe('swap function', () => {
  const donor = `function shouldReschedule(ctx) {\n  return true;\n}\n\nconst SHARE = 0.5;\n\nfunction half(n) {\n  return Math.round(n * SHARE);\n}\n\nfunction pick(ctx, n) {\n  // donor's pick\n  return half(n);\n}\n\nfunction schedule(ctx) {\n  return ctx.plan;\n}\n`;

  it('replaces a function with the same-named one of an inspiration, bringing its helpers', () => {
    const edits = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const edit = swapFunction.apply(context(TINY, [{ id: 17, code: donor, fitness: 90 }]), new Rng(seed))!;
      edits.add(edit.description);
      if (edit.description.startsWith('swap function pick')) {
        expect(edit.description).toBe('swap function pick from candidate #17 with 2 helpers SHARE, half');
        expect(edit.code).toContain("// donor's pick\n  return half(n);");
        expect(edit.code).not.toContain('p / n > 0.35');
        expect(edit.code).toContain('const SHARE = 0.5;');
        expect(edit.code.startsWith('/*\n * tiny: a test policy.')).toBe(true);
        expect(checkPolicy(edit.code).ok).toBe(true);
      }
    }
    // schedule and shouldReschedule differ too; all three are sites.
    expect(edits).toEqual(
      new Set(['swap function pick from candidate #17 with 2 helpers SHARE, half', 'swap function shouldReschedule from candidate #17', 'swap function schedule from candidate #17']),
    );
  });

  it('has nothing to do without an inspiration, or when the same-named functions are identical', () => {
    expect(swapFunction.apply(context(TINY), new Rng(1))).toBeNull();
    expect(swapFunction.apply(context(TINY, [{ id: 3, code: TINY, fitness: null }]), new Rng(1))).toBeNull();
    expect(swapFunction.apply(context(TINY, [{ id: 4, code: 'not javascript {', fitness: null }]), new Rng(1))).toBeNull();
  });
});

describe('drop and duplicate statement', () => {
  it('drops a statement of a function, whole line, never the final return', () => {
    for (let seed = 0; seed < 30; seed++) {
      const edit = dropStatement.apply(context(TINY), new Rng(seed))!;
      expect(edit.description).toMatch(/^drop statement (in helper pick|in shouldReschedule) \(line \d+\): `.+`$/);
      expect(edit.code).toContain('return best;');
      expect(edit.code).toContain('return { roles: splitToRoles(nP, ctx.nodes) };');
      expect(edit.code).toContain('return ctx.window.slices.length > 3;');
      expect(edit.code).not.toMatch(/\n[ \t]*\n[ \t]*\n/);
      expect(checkPolicy(edit.code).ok).toBe(true);
    }
  });

  it('has every statement but declarations and final returns as a site', () => {
    const descriptions = new Set<string>();
    for (let seed = 0; seed < 60; seed++) descriptions.add(dropStatement.apply(context(TINY), new Rng(seed))!.description);
    expect(descriptions).toEqual(
      new Set([
        'drop statement in shouldReschedule (line 21): `if (ctx.lastRescheduleAt !== null && ctx.now - …`',
        'drop statement in helper pick (line 11): `for (let p = 1; p < n; p++) { if (p / n > 0.35)…`',
        'drop statement in helper pick (line 12): `if (p / n > 0.35) { best = p; break; }`',
        'drop statement in helper pick (line 13): `best = p`',
        'drop statement in helper pick (line 14): `break`',
      ]),
    );
  });

  it('duplicates a statement on the next line with its indentation', () => {
    const code = policy('function schedule(ctx) {\n  let s = 0;\n  s += ctx.now;\n  return ctx.plan;\n}');
    const edit = duplicateStatement.apply(context(code), new Rng(1))!;
    expect(edit.description).toBe('duplicate statement in schedule (line 7): `s += ctx.now`');
    expect(edit.code).toBe(code.replace('  s += ctx.now;\n', '  s += ctx.now;\n  s += ctx.now;\n'));
  });

  it('finds nothing to drop or duplicate in final returns and declarations', () => {
    const code = policy('function schedule(ctx) {\n  const x = 1;\n  return ctx.plan;\n}');
    expect(dropStatement.apply(context(code), new Rng(1))).toBeNull();
    expect(duplicateStatement.apply(context(code), new Rng(1))).toBeNull();
  });
});

describe('structural mutator', () => {
  const mutator = createStructuralMutator({ maxEdits: 3 });

  it('is deterministic: same input and seed, same output', async () => {
    for (const parent of seeds) {
      const a = await mutator.mutate({ ...input(parent.code, 42), inspirations: seeds });
      const b = await mutator.mutate({ ...input(parent.code, 42), inspirations: seeds });
      expect(b).toEqual(a);
    }
    const outputs = new Set<string>();
    for (let seed = 0; seed < 8; seed++) outputs.add((await mutator.mutate(input(TINY, seed))).code);
    expect(outputs.size).toBeGreaterThan(4);
  });

  it('gives code that parses, keeps both functions and the header comment, with one line per edit', async () => {
    const kinds = new Set<string>();
    for (let seed = 0; seed < 120; seed++) {
      const parent = seeds[seed % seeds.length]!;
      const others = seeds.filter((s) => s !== parent);
      const out = await mutator.mutate({ ...input(parent.code, seed), parent: { id: parent.id, code: parent.code }, inspirations: others });
      expect(checkPolicy(out.code)).toMatchObject({ ok: true });
      expect(out.code).not.toBe(parent.code);
      const header = /^\/\*[\s\S]*?\*\/\n/.exec(parent.code)![0];
      expect(out.code.startsWith(header)).toBe(true);
      expect(out.editSummary).not.toContain('\n');
      const edits = out.editSummary.split(/; (?=perturb|flip|shift|swap|drop|duplicate|split|prefill)/);
      expect(edits.length).toBeGreaterThanOrEqual(1);
      expect(edits.length).toBeLessThanOrEqual(3);
      for (const e of edits) kinds.add(e.split(' ')[0]!);
      expect(out).toMatchObject({ model: null, promptTokens: null, completionTokens: null, mutator: 'structural' });
    }
    expect(kinds).toEqual(new Set(['perturb', 'flip', 'shift', 'swap', 'drop', 'duplicate', 'split', 'prefill']));
  });

  it('makes one edit with maxEdits 1', async () => {
    const one = createStructuralMutator({ maxEdits: 1 });
    for (let seed = 0; seed < 20; seed++) {
      const out = await one.mutate(input(TINY, seed));
      expect(out.editSummary).not.toMatch(/; (perturb|flip|shift|swap|drop|duplicate|split)/);
    }
  });

  it("fails with 'no-edit' when nothing is editable", async () => {
    const error = await failure(mutator.mutate(input(BARE, 1)));
    expect(error.reason).toBe('no-edit');
    expect(error.mutator).toBe('structural');
  });

  it("fails with 'parse' when the parent does not parse or lacks a contract function", async () => {
    expect((await failure(mutator.mutate(input('function schedule(ctx) {', 1)))).reason).toBe('parse');
    expect((await failure(mutator.mutate(input('function schedule(ctx) { return ctx.plan; }', 1)))).reason).toBe('parse');
  });

  it("fails with 'aborted' when the signal fired", async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await failure(mutator.mutate(input(TINY, 1), controller.signal))).reason).toBe('aborted');
  });

  it('rejects a maxEdits that is not a positive integer', () => {
    expect(() => createStructuralMutator({ maxEdits: 0 })).toThrow(RangeError);
  });
});

/** The literals perturbLiteral moves in `code` over seeds 0..seeds-1, sorted. */
function movedLiterals(code: string, seeds: number): string[] {
  const seen = new Set<string>();
  for (let seed = 0; seed < seeds; seed++) {
    const edit = perturbLiteral.apply(context(code), new Rng(seed))!;
    seen.add(/^perturb literal (\S+) ->/.exec(edit.description)![1]!);
  }
  return [...seen].sort();
}
